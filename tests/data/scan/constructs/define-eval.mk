define R
all:
	rm -rf v
endef
$(eval $(R))
