"""Whether the person is away from the desk: one small idle/lock source per OS behind one interface."""
