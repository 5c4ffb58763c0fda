# What 0004 (the Linux glue, ../0004-gcaps-linux-glue.patch.in) has of its own on r36.4.2:
# the line's name and the positions of the hunks in the files it changes. nvgpu/series.sh
# generates 0004-gcaps-linux-glue.patch from the template with this script.
s/@NVGPU_LINE@/r36.4.2/g
# drivers/gpu/nvgpu/Makefile: the end of the file
s/@HUNK_MAKEFILE@/-1058,3 +1058,10/
# drivers/gpu/nvgpu/os/linux/module.c: the include, probe_done, init_done, nvgpu_remove()
s/@HUNK_MODULE_C_1@/-73,6 +73,7/
s/@HUNK_MODULE_C_2@/-354,6 +355,7/
s/@HUNK_MODULE_C_3@/-1931,6 +1933,7/
s/@HUNK_MODULE_C_4@/-2006,6 +2009,7/
# drivers/gpu/nvgpu/os/linux/os_linux.h: struct nvgpu_os_linux
s/@HUNK_OS_LINUX_H@/-140,6 +140,9/
