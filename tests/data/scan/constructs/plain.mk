# Near misses: everything here is a construct scan models, so nothing asks.
CC := gcc
CFLAGS ?= -O2 -Wall
SRCS := $(wildcard src/*.c)
OBJS := $(patsubst src/%.c,build/%.o,$(SRCS))
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
MAKEFLAGS += --no-print-directory -s
export LANG := C
EXE :=
.PHONY: all list
.DEFAULT_GOAL := all
$(info building)
all: list
list:
	ls -la
	git status --short
