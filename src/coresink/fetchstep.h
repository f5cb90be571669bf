/* fetchstep.h: the fetch step's program, coresink --fetch-debuginfo (fetchstep.c). */
#ifndef CORESINK_FETCHSTEP_H
#define CORESINK_FETCHSTEP_H

int fetch_step_main(int argc, char **argv);

#endif
