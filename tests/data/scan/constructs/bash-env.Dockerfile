FROM debian:12
ENV BASH_ENV=/x
SHELL ["/bin/bash","-c"]
RUN echo hi
