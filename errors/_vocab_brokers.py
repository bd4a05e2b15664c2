"""Message brokers and search engines: their own error names.

Sources of truth: the AMQP 0-9-1 specification's reply codes (as RabbitMQ sends them:
"CONNECTION_FORCED", "RESOURCE_LOCKED"), Apache Kafka's protocol error codes (the "Error
Codes" table of the protocol guide, with which of them it marks retriable) and Elasticsearch's
exception types (`error.type` in its REST answers). Names are read as a person reads them, so
`NOT_LEADER_OR_FOLLOWER` and `NotLeaderOrFollowerException` are the same row.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["TERMS"]

TERMS: tuple[Term, ...] = (
    # AMQP 0-9-1 reply codes (RabbitMQ)
    term("CONNECTION_FORCED", S.NETWORK, "AMQP 320: the broker closed the connection"),
    term("INVALID_PATH", S.NOT_FOUND, "AMQP 402: no such virtual host"),
    term("ACCESS_REFUSED", S.FORBIDDEN, "AMQP 403: the user may not do this"),
    term("RESOURCE_LOCKED", S.CONFLICT, "AMQP 405: another connection holds the queue"),
    term("PRECONDITION_FAILED", S.BAD_REQUEST, "AMQP 406: declared with other arguments"),
    term("inequivalent arg", S.BAD_REQUEST, "RabbitMQ 406: declared with other arguments"),
    term("CHANNEL_ERROR", S.NETWORK, "AMQP 504: the channel was closed"),
    term("RESOURCE_ERROR", S.CAPACITY, "AMQP 506: the broker lacks resources for now"),
    term("NOT_ALLOWED", S.FORBIDDEN, "AMQP 530: not allowed by the broker"),
    term("NO_CONSUMERS", S.LATER, "AMQP 313: nobody to take the message now"),
    # Apache Kafka error codes (retriable ones: the next attempt finds a leader or a node)
    term("NOT_LEADER_OR_FOLLOWER", S.SERVER, "Kafka 6 (retriable): leadership moved"),
    term("NOT_LEADER_FOR_PARTITION", S.SERVER, "Kafka 6, its old name (retriable)"),
    term("LEADER_NOT_AVAILABLE", S.SERVER, "Kafka 5 (retriable): an election under way"),
    term("NOT_COORDINATOR", S.SERVER, "Kafka 16 (retriable): the coordinator moved"),
    term("COORDINATOR_NOT_AVAILABLE", S.SERVER, "Kafka 15 (retriable)"),
    term("COORDINATOR_LOAD_IN_PROGRESS", S.LATER, "Kafka 14 (retriable): still loading"),
    term("NOT_ENOUGH_REPLICAS", S.SERVER, "Kafka 19 (retriable): too few replicas in sync"),
    term("REBALANCE_IN_PROGRESS", S.LATER, "Kafka 27: the group is rebalancing"),
    term("KAFKA_STORAGE_ERROR", S.SERVER, "Kafka 56 (retriable): a broker's disk failed"),
    term("NETWORK_EXCEPTION", S.NETWORK, "Kafka 13 (retriable): the connection broke"),
    term("REQUEST_TIMED_OUT", S.TIMEOUT, "Kafka 7 (retriable)"),
    term("UNKNOWN_TOPIC_OR_PARTITION", S.NOT_FOUND, "Kafka 3: no such topic or partition"),
    term("TOPIC_AUTHORIZATION_FAILED", S.FORBIDDEN, "Kafka 29: an ACL denies the topic"),
    term("GROUP_AUTHORIZATION_FAILED", S.FORBIDDEN, "Kafka 30: an ACL denies the group"),
    term("SASL_AUTHENTICATION_FAILED", S.BAD_CREDENTIALS, "Kafka 58: wrong credentials"),
    term("MESSAGE_TOO_LARGE", S.TOO_LARGE, "Kafka 10: larger than the broker takes"),
    term("RECORD_LIST_TOO_LARGE", S.TOO_LARGE, "Kafka 18"),
    term("INVALID_TOPIC_EXCEPTION", S.BAD_REQUEST, "Kafka 17: not a legal topic name"),
    term("OFFSET_OUT_OF_RANGE", S.BAD_REQUEST, "Kafka 1: no such offset"),
    term("CORRUPT_MESSAGE", S.BAD_DATA, "Kafka 2 (retriable): a record failed its check"),
    term("THROTTLING_QUOTA_EXCEEDED", S.RATE_LIMIT, "Kafka 89: topic changes too fast"),
    term("FENCED_LEADER_EPOCH", S.SERVER, "Kafka 74 (retriable): a stale leader epoch"),
    term("UNKNOWN_LEADER_EPOCH", S.SERVER, "Kafka 75 (retriable)"),
    # Elasticsearch (and OpenSearch) exception types
    term("es_rejected_execution_exception", S.CAPACITY, "Elasticsearch: a full thread pool"),
    term("rejected execution", S.CAPACITY, "Elasticsearch: a full thread pool"),
    term("circuit_breaking_exception", S.CAPACITY, "Elasticsearch: memory breaker tripped"),
    term("version_conflict_engine_exception", S.CONFLICT, "Elasticsearch: a stale version"),
    term("mapper_parsing_exception", S.BAD_REQUEST, "Elasticsearch: a field of the wrong type"),
    term("document_parsing_exception", S.BAD_REQUEST, "Elasticsearch 8: the same"),
    term("failed to parse field", S.BAD_REQUEST, "Elasticsearch: a field of the wrong type"),
    term("illegal_argument_exception", S.BAD_REQUEST, "Elasticsearch: a bad parameter"),
    term("parsing_exception", S.BAD_REQUEST, "Elasticsearch: a query it cannot read"),
    term("search_phase_execution_exception", S.SERVER, "Elasticsearch: shards failed"),
    term("no_shard_available_action_exception", S.SERVER, "Elasticsearch: shards moving"),
    term("node_disconnected_exception", S.NETWORK, "Elasticsearch: a node dropped"),
    term("master_not_discovered_exception", S.SERVER, "Elasticsearch: no elected master"),
    term("cluster_block_exception", S.FORBIDDEN, "Elasticsearch: writes blocked"),
    term("flood stage", S.DISK_FULL, "Elasticsearch: the flood-stage disk watermark"),
    term("security_exception", S.FORBIDDEN, "Elasticsearch: the user lacks a privilege"),
)
