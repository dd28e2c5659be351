SHELL := /bin/bash ./evil.sh
all:
	echo hi
