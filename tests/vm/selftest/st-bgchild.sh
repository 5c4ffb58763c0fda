#!/bin/sh
# Harness self-test: exits 0 but leaves two children running, one in its process group and one
# in a session of its own; the test must FAIL and neither child may survive (st-survivors).
(while :; do echo tick >>/tmp/st-bgchild-group.ticks; sleep 0.2; done) &
setsid sh -c 'while :; do echo tick >>/tmp/st-bgchild-session.ticks; sleep 0.2; done' &
sleep 0.5
echo "st-bgchild: leaving two children running"
