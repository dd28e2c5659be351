X = all: ; rm -rf v
$(X)
