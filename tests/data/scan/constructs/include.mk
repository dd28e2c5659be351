include x.mk
all:
	echo hi
