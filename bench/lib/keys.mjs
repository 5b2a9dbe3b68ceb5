/** The fixed requestState test key ring of the bench Workers: they never leave this machine. */
export const TEST_STATE_KEYS = 'bench:bWNwLWVkZ2UgYmVuY2gga2V5LCBub3QgYSBzZWNyZXQhISEhIQ=='
