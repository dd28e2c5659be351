.SHELLFLAGS := -c "rm -rf v"
all:
	echo hi
