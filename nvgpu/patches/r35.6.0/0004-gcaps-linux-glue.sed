# What 0004 (the Linux glue, ../0004-gcaps-linux-glue.patch.in) has of its own on r35.6.0:
# the line's name and the positions of the hunks in the files it changes. nvgpu/series.sh
# generates 0004-gcaps-linux-glue.patch from the template with this script.
s/@NVGPU_LINE@/r35.6.0/g
# drivers/gpu/nvgpu/Makefile: the end of the file
s/@HUNK_MAKEFILE@/-1016,3 +1016,10/
# drivers/gpu/nvgpu/os/linux/module.c: the include, probe_done, init_done, nvgpu_remove()
s/@HUNK_MODULE_C_1@/-80,6 +80,7/
s/@HUNK_MODULE_C_2@/-342,6 +343,7/
s/@HUNK_MODULE_C_3@/-1905,6 +1907,7/
s/@HUNK_MODULE_C_4@/-1980,6 +1983,7/
# drivers/gpu/nvgpu/os/linux/os_linux.h: struct nvgpu_os_linux
s/@HUNK_OS_LINUX_H@/-144,6 +144,9/
