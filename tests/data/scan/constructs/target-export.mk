SHELL := /bin/bash
all: export BASH_ENV = ./evil.sh
all:
	echo hi
