# make reads one branch of a conditional; scan does not model which.
ifeq ($(OS),Windows_NT)
  EXE := .exe
endif
.PHONY: all
all:
	ls
