"""Trust policy over records and holdings: confidence, corroboration, settling, disputes, retraction, decay.

The stores place and index statements; how sure an owner is of what it holds is decided here,
as functions over records, holdings and the store's dispute maps, so the policy reads in one place.
"""

from __future__ import annotations

FIRST_HAND = frozenset({"witnessed", "sediment", "authored"})
# Confidence of a fresh holding by how it was learned (told and read are scaled by reliability).
BASE_CONFIDENCE = {
    "authored": 0.95,
    "witnessed": 0.9,
    "sediment": 0.88,
    "read": 0.75,
    "told": 0.7,
    "inferred": 0.45,
}
# Higher wins when one owner holds a record twice (told, then saw it).
VIA_STRENGTH = {"inferred": 0, "told": 1, "read": 2, "sediment": 3, "witnessed": 4, "authored": 5}
FACT_KINDS = frozenset({"claim", "inference", "insight", "reflection"})
STATUS_WEIGHT = {"believed": 1.0, "doubted": 0.8, "disputed": 0.85, "retracted": 0.5}
NEVER = -(2**31)  # "no decay yet": rounds before the start point are negative (story time)
