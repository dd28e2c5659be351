MAKEFLAGS += --eval=all:;rm$$(SP)-rf$$(SP)v
all:
	echo hi
