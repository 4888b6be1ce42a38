"""Who sent a request and where its answer may go: the broker user from the topic, the reply under that user's tree.

Identity never comes from a payload: a request topic ends with the requester's broker user name
(`T/bets/<user>`), which the broker's ACL (`pattern write .../%u`) lets only that user write, and
`use_username_as_clientid` keeps anyone from taking another's session. An answer goes to the
request's MQTT 5 response topic only when it lies in the requester's own reply tree
(`<prefix>/replies/<user>/...`, a plain topic of at most `MAX_REPLY_TOPIC` bytes); anything else
(another terminal's replies, a table topic, a wildcard) is replaced by the default reply topic, so
a client can neither make the controller speak for it elsewhere nor write where the broker would
refuse it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$"
_USER = re.compile(USER_PATTERN)
MAX_REPLY_TOPIC = 256  # bytes (UTF-8) of a response topic the controller will publish to


@dataclass(frozen=True)
class Reply:
    """Where to answer a request: a topic in the requester's reply tree, and the correlation data."""

    topic: str
    correlation: bytes | None


def valid_user(user: str) -> bool:
    """A broker user name the controller accepts in a request topic (one topic level, no wildcards)."""
    return bool(_USER.match(user))


def reply_to(reply_prefix: str, default: str, response_topic: str | None, correlation: bytes | None) -> Reply:
    """The request's response topic when it is a plain topic under `reply_prefix`, else `default`."""
    topic = response_topic or ""
    own = (topic.startswith(reply_prefix) and len(topic) > len(reply_prefix)
           and not any(c in topic for c in "+#\x00") and len(topic.encode()) <= MAX_REPLY_TOPIC)
    return Reply(topic if own else default, correlation)
