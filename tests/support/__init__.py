"""What the tests share: the helpers, fixtures and stand-ins that more than one test module uses.

Test modules import from here (and from their own folder's helper modules), never from each other.
"""
