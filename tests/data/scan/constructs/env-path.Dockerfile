FROM debian:12
ENV PATH=/opt/evil/bin:$PATH ENV=/x
ARG LD_PRELOAD=/x.so
RUN ls
