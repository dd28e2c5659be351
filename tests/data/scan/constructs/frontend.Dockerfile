# syntax=example.com/frontend:1
FROM debian:12
RUN ls
