"""Round ids follow time (casino.store.ids): RFC 9562 version 7, ordered as text."""

from __future__ import annotations

import uuid

from casino.store.ids import time_ordered_uuid


def test_a_time_ordered_id_is_a_version_7_uuid_in_canonical_form() -> None:
    made = time_ordered_uuid()
    parsed = uuid.UUID(made)
    assert str(parsed) == made and parsed.version == 7 and parsed.variant == uuid.RFC_4122


def test_ids_sort_as_text_in_the_order_of_their_milliseconds() -> None:
    ids = [time_ordered_uuid(1_767_225_600_000 + step) for step in range(0, 5000, 7)]
    assert ids == sorted(ids)
    assert int(uuid.UUID(ids[0]).hex[:12], 16) == 1_767_225_600_000


def test_ids_of_one_millisecond_differ() -> None:
    ids = {time_ordered_uuid(1_767_225_600_000) for _ in range(10_000)}
    assert len(ids) == 10_000
