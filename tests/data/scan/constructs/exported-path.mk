export PATH := ./bin:$(PATH)
all:
	ls
