/*
 * What Stash's Darwin file events (Sources/Stash/FileEvents.swift) use from Darwin's
 * <sys/event.h> and <sys/fcntl.h>, declared as macOS declares them (types, values and
 * packing as in xnu's bsd/sys/event.h and bsd/sys/fcntl.h), so that Linux can type-check
 * that code: Swift imports these the same way on every platform. The rest (open, close,
 * stat, timespec) comes from the C library, as Darwin's overlay gives it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Filters. */
#define EVFILT_VNODE (-4)

/* Actions and flags. */
#define EV_ADD 0x0001
#define EV_CLEAR 0x0020

/* Vnode events. */
#define NOTE_DELETE 0x00000001
#define NOTE_WRITE 0x00000002
#define NOTE_EXTEND 0x00000004
#define NOTE_ATTRIB 0x00000008
#define NOTE_LINK 0x00000010
#define NOTE_RENAME 0x00000020
#define NOTE_REVOKE 0x00000040

/* Opens a file for events only (it does not keep its volume from unmounting). */
#define O_EVTONLY 0x00008000

#pragma pack(4)
struct kevent {
  uintptr_t ident;
  int16_t filter;
  uint16_t flags;
  uint32_t fflags;
  intptr_t data;
  void *udata;
};
#pragma pack()

int kqueue(void);
int kevent(int kq, const struct kevent *changelist, int nchanges, struct kevent *eventlist,
           int nevents, const struct timespec *timeout);
