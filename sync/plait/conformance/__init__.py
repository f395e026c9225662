"""Real servers and checks that prove a client copy keeps the contract.

Tests of the canonical client, conformance runs over vendored copies and
`plait probe` demonstrations all need a backend that misbehaves on demand in
exactly the ways production backends do; it lives here so they share one.
"""
