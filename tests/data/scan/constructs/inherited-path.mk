PATH := ./bin:$(PATH)
all:
	ls
