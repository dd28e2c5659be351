/*
 * shim.c: the do-nothing program the differential sandbox installs under every command name.
 *
 * It must never read input, write output, touch files or start anything: the harness wants to
 * see what *bash* executes, and a shim that did work of its own would blur that record. Printing
 * nothing also means `$(cmd)` expands to the empty string, which keeps the walk deterministic.
 * The exit status comes from CMDGUARD_SHIM_EXIT so one template serves both the "everything
 * succeeds" run and the "everything fails" run that takes `||` branches.
 */
#include <stdlib.h>

int main(void) {
    const char *status = getenv("CMDGUARD_SHIM_EXIT");
    return status ? atoi(status) : 0;
}
