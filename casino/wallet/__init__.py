"""The seamless wallet: the game server calls the operator's wallet for every debit and credit.

- ``protocol``: the messages, their statuses and the rules both sides keep (the spec is
  docs/integration.md); ``signing``: the HMAC over the bytes sent.
- ``client``: what the game server calls; every outcome is a definite answer or UNKNOWN.
- ``demo``: a reference operator wallet (``casino demo-wallet``), with injected faults and
  deliberately broken modes.
- ``check``: the certification kit an operator runs against its wallet
  (``casino wallet-check``).

This package depends on the standard library and urllib3 only; nothing in it knows the
service layer, so the service's wallet adapter can wrap the client without an import loop.
"""
