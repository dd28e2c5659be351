SHELL := /bin/bash
export BASH_ENV := ./evil.sh
all:
	echo hi
