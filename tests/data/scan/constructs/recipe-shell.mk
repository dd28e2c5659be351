all:
	echo $(shell rm -rf v)
