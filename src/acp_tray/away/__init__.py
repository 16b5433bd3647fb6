"""Whether the person is away from the desk (idle or locked), read from the OS only when asked."""
