"""The public value a shared table's chain is mixed with (docs/fairness.md, section 17).

A chain's commitment is published first; the public value is fixed only afterwards, by a
source the operator cannot steer, and it plays the client seed's part in every shoe of the
chain. So the operator, who chose the chain before the value existed, could not have picked
a chain that deals well for the house with it ("grinding").

Sources (``PublicSource``):

* ``drand``: the randomness of a drand beacon round (League of Entropy), 64 hex digits; the
  reference names the beacon chain and the round, announced with the commitment, a round not
  yet emitted then. What production should use.
* ``bitcoin``: the hash of the Bitcoin block at a height announced with the commitment, a
  block not yet mined then (64 hex digits).
* ``operator``: a value the operator drew from its CSPRNG after publishing the commitment.
  It proves that the shoes were dealt by the algorithm from seeds fixed before the value,
  but not that the operator did not draw again until a chain suited it: it can be ground,
  and says so (``grindable``). For deployments that cannot reach a beacon, tests and
  simulations.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from casino.engine.errors import InvalidSeed
from casino.engine.fairness import validate_client_seed

REFERENCE_MAX = 200


class PublicSource(StrEnum):
    DRAND = "drand"
    BITCOIN = "bitcoin"
    OPERATOR = "operator"


@dataclass(frozen=True)
class PublicValue:
    """Where the value comes from, which of its values (a beacon round, a block height), and
    the value itself: 1 to 64 printable ASCII characters, used byte for byte as the client
    seed of every shoe of the chain."""

    source: PublicSource
    reference: str
    value: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", source_of(self.source))
        if not isinstance(self.reference, str) or len(self.reference) > REFERENCE_MAX:
            raise InvalidSeed(f"a public value's reference is text of at most {REFERENCE_MAX}")
        validate_client_seed(self.value)

    @property
    def grindable(self) -> bool:
        """True where the operator could have chosen the value (``operator``)."""
        return self.source is PublicSource.OPERATOR

    @classmethod
    def operator_drawn(cls, reference: str = "") -> PublicValue:
        """A value drawn now from the CSPRNG: for a deployment without a beacon."""
        return cls(PublicSource.OPERATOR, reference, secrets.token_hex(32))

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source.value, "reference": self.reference, "value": self.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PublicValue:
        return cls(source_of(data["source"]), data.get("reference", ""), data["value"])


def source_of(value: object) -> PublicSource:
    try:
        return PublicSource(str(value))
    except ValueError:
        raise InvalidSeed(
            f"a public value's source is one of {[s.value for s in PublicSource]}"
        ) from None
