FROM debian:12
SHELL ["/bin/sh","-c","rm -rf /v; sh -c \"$0\""]
RUN echo hi
