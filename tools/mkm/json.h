/* SPDX-License-Identifier: GPL-2.0 */
/* json.h - what the commands' JSON output shares. */
#ifndef MKM_JSON_H
#define MKM_JSON_H

/* @s on stdout as a JSON string: quoted, '"' and backslash escaped,
 * control and non-ASCII bytes as \u00XX. */
void json_string(const char *s);

#endif /* MKM_JSON_H */
