/*
 * config.h: the config stage, what the administrator asked for: the configuration file and its drop-ins, each key's
 * parser, default and printer (config.c, config-file.c), the [Rule] sections (config-rule.c), and which rule a crash
 * gets (rules.c).
 * The one header the other stages include of it; it uses sandbox, intake, write, base.
 */
#ifndef CORESINK_STAGE_CONFIG_H
#define CORESINK_STAGE_CONFIG_H

#include "config/config.h"
#include "config/rules.h"

#endif
