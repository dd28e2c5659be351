# syntax=docker/dockerfile:1
ARG BASE=debian:12
FROM $BASE
ARG VERSION
ENV LANG=C.UTF-8 TZ=Etc/UTC
ENV CI true
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
WORKDIR /app
COPY . .
RUN ls -la
ONBUILD COPY . /src
CMD ["ls"]
