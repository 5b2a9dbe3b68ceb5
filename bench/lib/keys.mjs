/** The fixed requestState test key ring of the bench Workers: they never leave this machine. */
export const TEST_STATE_KEYS = 'bench:bWNwLWVkZ2UgYmVuY2gga2V5LCBub3QgYSBzZWNyZXQhISEhIQ=='
/** The bench's MCP_BEARER_TOKEN, for the template as deployed (a token set, so no local-only mode). */
export const BENCH_BEARER_TOKEN = 'bench-token-not-a-secret-0123456789'
