// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * u32map.c - a u32 -> u32 open-addressing hash, for the library's small
 * maps (a tid's unique_id, a tgid's process): a key is stored plus one,
 * so that 0 and UINT32_MAX are keys too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t map_slot(uint32_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B1u) & (cap - 1));
}

bool mon_u32map_get(const struct mon_u32map *m, uint32_t key, uint32_t *val)
{
	size_t s;

	if (!m->cap)
		return false;
	for (s = map_slot(key, m->cap); m->key[s]; s = (s + 1) & (m->cap - 1))
		if (m->key[s] == (uint64_t)key + 1) {
			*val = m->val[s];
			return true;
		}
	return false;
}

int mon_u32map_set(struct mon_u32map *m, uint32_t key, uint32_t val)
{
	size_t s;

	if ((m->used + 1) * 4 > m->cap * 3) {
		size_t cap = m->cap ? m->cap * 2 : 64, i;
		uint64_t *k = calloc(cap, sizeof(*k));
		uint32_t *v = malloc(cap * sizeof(*v));

		if (!k || !v) {
			free(k);
			free(v);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++) {
			if (!m->key[i])
				continue;
			s = map_slot((uint32_t)(m->key[i] - 1), cap);
			while (k[s])
				s = (s + 1) & (cap - 1);
			k[s] = m->key[i];
			v[s] = m->val[i];
		}
		free(m->key);
		free(m->val);
		m->key = k;
		m->val = v;
		m->cap = cap;
	}
	s = map_slot(key, m->cap);
	while (m->key[s] && m->key[s] != (uint64_t)key + 1)
		s = (s + 1) & (m->cap - 1);
	if (!m->key[s])
		m->used++;
	m->key[s] = (uint64_t)key + 1;
	m->val[s] = val;
	return 0;
}

void mon_u32map_free(struct mon_u32map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
