X := $(call shell,rm -rf v)
all:
	echo hi
