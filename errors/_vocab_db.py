"""Databases: PostgreSQL's SQLSTATE classes and messages; MySQL's, SQLite's, MongoDB's and
Redis's common errors.

Sources of truth: PostgreSQL's errcodes (Appendix A of its manual: class 08 connection
exceptions, 23505 unique violation, 28 invalid authorization, 3D000/42P01 missing objects,
40001/40P01 serialization failure and deadlock — "retry the transaction" — 53 insufficient
resources, 55P03 lock not available, 57014 query cancelled, 57P01–57P03 shutdown and start-up)
with the server's message texts; MySQL's server and client error reference (ER_* and CR_*
codes with their messages); Redis's error prefixes (OOM, LOADING, BUSY, NOAUTH, WRONGPASS,
READONLY, MASTERDOWN, TRYAGAIN); SQLite's result codes (`SQLITE_BUSY`, …, as its C API
names them); MongoDB's server error names (its `error_codes.yml`).
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["ORACLE_CODES", "SQLSTATES", "SQLSTATE_CLASSES", "TERMS"]

# SQLSTATE → signal, where a text quotes the code ("SQLSTATE[40001]", "ERROR:  40P01").
SQLSTATES: dict[str, S] = {
    "40001": S.CONFLICT,  # serialization_failure: retry the transaction
    "40P01": S.CONFLICT,  # deadlock_detected: retry the transaction
    "23505": S.EXISTS,  # unique_violation
    "28P01": S.BAD_CREDENTIALS,  # invalid_password
    "3D000": S.NOT_FOUND,  # invalid_catalog_name: no such database
    "42P01": S.NOT_FOUND,  # undefined_table
    "42501": S.FORBIDDEN,  # insufficient_privilege
    "53100": S.DISK_FULL,  # disk_full
    "53200": S.OUT_OF_MEMORY,  # out_of_memory
    "53300": S.CAPACITY,  # too_many_connections
    "55P03": S.CONFLICT,  # lock_not_available
    "57014": S.TIMEOUT,  # query_canceled (statement_timeout)
    "57P01": S.NETWORK,  # admin_shutdown: the connection was closed, reconnect
    "57P02": S.NETWORK,  # crash_shutdown
    "57P03": S.SERVER,  # cannot_connect_now: starting up or shutting down
}
# Oracle's ORA- codes (Oracle Database Error Messages): the code says it in every language
# the server speaks ("ORA-00001: 违反唯一约束条件", "ORA-00001: restriccion unica … violada").
ORACLE_CODES: dict[int, S] = {
    1: S.EXISTS,  # unique constraint violated
    54: S.CONFLICT,  # resource busy and acquire with NOWAIT specified or timeout expired
    60: S.CONFLICT,  # deadlock detected while waiting for resource
    942: S.NOT_FOUND,  # table or view does not exist
    1017: S.BAD_CREDENTIALS,  # invalid username/password; logon denied
    1555: S.CONFLICT,  # snapshot too old: rerun the query
    1653: S.DISK_FULL,  # unable to extend table in tablespace
    1654: S.DISK_FULL,  # unable to extend index in tablespace
    4031: S.OUT_OF_MEMORY,  # unable to allocate shared memory
    12154: S.NOT_FOUND,  # could not resolve the connect identifier
    12170: S.TIMEOUT,  # TNS connect timeout occurred
    12505: S.NOT_FOUND,  # listener does not currently know of SID
    12514: S.NOT_FOUND,  # listener does not currently know of service
    12519: S.CAPACITY,  # no appropriate service handler found
    12520: S.CAPACITY,  # listener could not find available handler
    12541: S.NETWORK,  # TNS: no listener
    12543: S.NETWORK,  # TNS: destination host unreachable
    28000: S.FORBIDDEN,  # the account is locked
    28001: S.EXPIRED_TOKEN,  # the password has expired
    3113: S.NETWORK,  # end-of-file on communication channel
    3114: S.NETWORK,  # not connected to ORACLE
    3135: S.NETWORK,  # connection lost contact
    18: S.CAPACITY,  # maximum number of sessions exceeded
    20: S.CAPACITY,  # maximum number of processes exceeded
}
ORACLE_CONNECT = frozenset({12541, 12543})  # no listener, no host: nothing was sent
# A whole class, where the exact code is not listed above.
SQLSTATE_CLASSES: dict[str, S] = {
    "08": S.NETWORK,  # connection_exception
    "22": S.INVALID_INPUT,  # data_exception
    "23": S.BAD_REQUEST,  # integrity_constraint_violation
    "28": S.BAD_CREDENTIALS,  # invalid_authorization_specification
    "40": S.CONFLICT,  # transaction_rollback
    "53": S.RESOURCE_LIMIT,  # insufficient_resources
    "57": S.SERVER,  # operator_intervention
}

TERMS: tuple[Term, ...] = (
    # PostgreSQL server messages
    term("deadlock detected", S.CONFLICT, "PostgreSQL 40P01"),
    term("could not serialize access", S.CONFLICT, "PostgreSQL 40001"),
    term("sorry, too many clients already", S.CAPACITY, "PostgreSQL 53300"),
    term("too many connections for role", S.CAPACITY, "PostgreSQL 53300, per role"),
    term("remaining connection slots are reserved", S.CAPACITY, "PostgreSQL 53300"),
    term("could not extend file", S.DISK_FULL, "PostgreSQL 53100"),
    term("terminating connection due to administrator command", S.NETWORK, "PostgreSQL 57P01"),
    term("the database system is starting up", S.SERVER, "PostgreSQL 57P03"),
    term("the database system is shutting down", S.SERVER, "PostgreSQL 57P03"),
    term("the database system is in recovery mode", S.SERVER, "PostgreSQL 57P03"),
    term("canceling statement due to statement timeout", S.TIMEOUT, "PostgreSQL 57014"),
    term("canceling statement due to lock timeout", S.CONFLICT, "PostgreSQL 55P03"),
    term("could not obtain lock", S.CONFLICT, "PostgreSQL 55P03"),
    term("password authentication failed", S.BAD_CREDENTIALS, "PostgreSQL 28P01"),
    term("no pg_hba.conf entry", S.FORBIDDEN, "PostgreSQL 28000: the server does not admit"),
    term("no password supplied", S.MISSING_KEY, "libpq: fe_sendauth, no password configured"),
    term("duplicate key value violates unique constraint", S.EXISTS, "PostgreSQL 23505"),
    term("server closed the connection unexpectedly", S.NETWORK, "libpq: connection lost"),
    term("could not connect to server", S.NETWORK, "libpq: connection failed", connect=True),
    term("AdminShutdown", S.NETWORK, "psycopg: 57P01"),
    term("DeadlockDetected", S.CONFLICT, "psycopg: 40P01"),
    term("SerializationFailure", S.CONFLICT, "psycopg: 40001"),
    term("TooManyConnections", S.CAPACITY, "psycopg: 53300"),
    term("UniqueViolation", S.EXISTS, "psycopg: 23505"),
    term("QueryCanceled", S.TIMEOUT, "psycopg: 57014"),
    term("CannotConnectNow", S.SERVER, "psycopg: 57P03"),
    # MySQL server (ER_*) and client (CR_*) errors
    term("Deadlock found when trying to get lock", S.CONFLICT, "MySQL 1213 ER_LOCK_DEADLOCK"),
    term("ER_LOCK_DEADLOCK", S.CONFLICT, "MySQL 1213"),
    term("Lock wait timeout exceeded", S.CONFLICT, "MySQL 1205 ER_LOCK_WAIT_TIMEOUT"),
    term("ER_LOCK_WAIT_TIMEOUT", S.CONFLICT, "MySQL 1205"),
    term("try restarting transaction", S.CONFLICT, "MySQL: the transaction was rolled back"),
    term("MySQL server has gone away", S.NETWORK, "MySQL 2006 CR_SERVER_GONE_ERROR"),
    term("Lost connection to MySQL server", S.NETWORK, "MySQL 2013 CR_SERVER_LOST"),
    term("Can't connect to MySQL server", S.NETWORK, "MySQL 2003", connect=True),
    term("Too many connections", S.CAPACITY, "MySQL 1040 ER_CON_COUNT_ERROR"),
    term("ER_CON_COUNT_ERROR", S.CAPACITY, "MySQL 1040"),
    term("Access denied for user", S.BAD_CREDENTIALS, "MySQL 1045 ER_ACCESS_DENIED_ERROR"),
    term("Unknown database", S.NOT_FOUND, "MySQL 1049 ER_BAD_DB_ERROR"),
    term("Duplicate entry", S.EXISTS, "MySQL 1062 ER_DUP_ENTRY"),
    term("ER_DUP_ENTRY", S.EXISTS, "MySQL 1062"),
    # Redis error prefixes
    term("OOM command not allowed", S.OUT_OF_MEMORY, "Redis OOM: maxmemory reached"),
    term("LOADING Redis is loading the dataset in memory", S.SERVER, "Redis LOADING"),
    term("BUSY Redis is busy running a script", S.CAPACITY, "Redis BUSY"),
    term("NOAUTH Authentication required", S.MISSING_KEY, "Redis NOAUTH: no password sent"),
    term("WRONGPASS", S.BAD_CREDENTIALS, "Redis WRONGPASS"),
    term("You can't write against a read only replica", S.SERVER, "Redis READONLY: failover"),
    term("MASTERDOWN", S.SERVER, "Redis: link with the primary is down"),
    term("TRYAGAIN", S.CONFLICT, "Redis Cluster: multi-key operation during resharding"),
    term("Error 111 connecting to", S.NETWORK, "redis-py: ECONNREFUSED", connect=True),
    # SQLite result codes
    term("SQLITE_BUSY", S.CONFLICT, "SQLite 5: another connection holds the lock"),
    term("SQLITE_LOCKED", S.CONFLICT, "SQLite 6: a table locked within the connection"),
    term("SQLITE_FULL", S.DISK_FULL, "SQLite 13: the disk is full"),
    term("SQLITE_CONSTRAINT_UNIQUE", S.EXISTS, "SQLite 2067: a unique constraint"),
    term("SQLITE_READONLY", S.PERMISSION, "SQLite 8: a read-only database"),
    term("attempt to write a readonly database", S.PERMISSION, "SQLite 8"),
    term("unable to open database file", S.PERMISSION, "SQLite 14 SQLITE_CANTOPEN"),
    # MongoDB server error names
    term("NotWritablePrimary", S.SERVER, "MongoDB 10107: failover, retryable"),
    term("NotPrimaryNoSecondaryOk", S.SERVER, "MongoDB 13435: failover, retryable"),
    term("PrimarySteppedDown", S.SERVER, "MongoDB 189: failover, retryable"),
    term("InterruptedAtShutdown", S.SERVER, "MongoDB 11600: a node going down"),
    term("MaxTimeMSExpired", S.TIMEOUT, "MongoDB 50: the operation's time limit"),
    term("NamespaceNotFound", S.NOT_FOUND, "MongoDB 26: no such collection"),
    term("DuplicateKey", S.EXISTS, "MongoDB 11000"),
    term("E11000", S.EXISTS, "MongoDB 11000: a duplicate key"),
)
