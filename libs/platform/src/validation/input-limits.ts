/** Limits every request is held to before any DTO or repository sees it (issue 13, finding 10). */

/** Deepest nesting of arrays/objects accepted in a JSON body or a JSON-valued field. */
export const MAX_JSON_DEPTH = 64;

/** Largest value of a PostgreSQL `integer` (int4): ids, versions and counters must fit. */
export const PG_INT_MAX = 2_147_483_647;

/** Largest page offset accepted anywhere (an int4, so it never overflows a query parameter). */
export const MAX_PAGE_OFFSET = PG_INT_MAX;
