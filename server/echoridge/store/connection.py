"""Connecting to Redis, checking it is safe to use, running scripts, converting its errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.maint_notifications import MaintNotificationsConfig

from echoridge.store import scripts
from echoridge.store.errors import RedisMisconfigured, StoreUnavailable

Redis = aioredis.Redis
CLUSTER_SCHEME = "redis+cluster://"


@asynccontextmanager
async def redis_errors(doing: str) -> AsyncIterator[None]:
    """Convert Redis and network errors into StoreUnavailable."""
    try:
        yield
    except (rexc.RedisError, OSError) as exc:
        raise StoreUnavailable(f"Redis failed while {doing}: {exc}") from exc


POOL_CONNECTIONS = 512  # at most this many Redis connections per client (one per call in flight)
POOL_WAIT = 10.0  # seconds a call waits for a free connection before it fails


def text(value: object) -> str:
    """A reply's bytes (or a value) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def connection_options() -> dict[str, Any]:
    """What redis-py sends on each new connection, beyond HELLO: nothing.  By default it also
    sends CLIENT SETINFO (twice: a Redis before 7.2 refuses it, and the bundled one is 6.2) and
    CLIENT MAINT_NOTIFICATIONS (maintenance notices, which Redis Cloud and Software give); redis-py
    ignores a refusal, but each leaves a reference cycle (the error, its traceback, the frame that
    holds the error) holding the task that happened to open the connection, and everything that
    task holds (a session, a table's runner), until a full collection, which serve.py makes
    rare.  A pool opens connections as it grows and after every cancelled call."""
    return {"driver_info": None, "maint_notifications_config": MaintNotificationsConfig(False)}


def is_cluster(url: str) -> bool:
    """``redis+cluster://host:port,host:port,...``: a Redis Cluster, by some of its nodes."""
    return url.startswith(CLUSTER_SCHEME)


def cluster_client(url: str, **options: Any) -> RedisCluster:
    """A client for the Redis Cluster of ``redis+cluster://host:port,host:port,...`` (any of
    its nodes: it finds the others).  Each node's pool holds ``POOL_CONNECTIONS`` at most."""
    where = url.removeprefix(CLUSTER_SCHEME).split("/", 1)[0].split("?", 1)[0]
    nodes = []
    for part in where.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a cluster URL lists host:port pairs: {url!r}")
        nodes.append(ClusterNode(host.strip("[]"), int(port)))
    return RedisCluster(
        startup_nodes=nodes,
        **{"max_connections": POOL_CONNECTIONS, **connection_options(), **options},
    )


def client(url: str, **options: Any) -> Redis:
    """A client for ``redis://host:port/db`` or ``unix:///path/to/socket``.

    Its pool blocks: a call beyond ``POOL_CONNECTIONS`` at once waits for a free connection
    (redis-py's default pool fails such a call at once, and caps itself at 100 connections,
    which a busy node reaches).  ``?max_connections=N&timeout=S`` in the URL override both."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        **{
            "max_connections": POOL_CONNECTIONS,
            "timeout": POOL_WAIT,
            **connection_options(),
            **options,
        },
    )
    return aioredis.Redis.from_pool(pool)


SCRIPT_NAMES = (
    "APPEND", "CREATE_TABLE", "UPDATE_META", "JOIN", "LEAVE", "START", "CLOSE", "EXPIRE",
    "PRESENCE", "RESERVE", "CLAIM", "ARCHIVE",
    "RELEASE",
)


class Scripts:
    """The store's Lua scripts, loaded once; called by SHA in one round trip."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._sha: dict[str, str] = {}
        self._nodes: dict[str, Redis] = {}  # a cluster's primaries, for call_and_wait

    async def load(self) -> None:
        async with redis_errors("loading scripts"):
            for name in SCRIPT_NAMES:
                self._sha[name] = await self._redis.script_load(getattr(scripts, name))

    async def call_and_wait(
        self, name: str, keys: Sequence[str], args: Sequence[Any], replicas: int, timeout_ms: int
    ) -> tuple[Any, int]:
        """The script's reply, and how many replicas have everything it wrote (WAIT, on the
        same connection, in the same round trip).  On a cluster both go to the primary of the
        keys' slot over a connection of ours to it (redis-py would send WAIT to every
        primary); a slot that moved meanwhile is StoreUnavailable, and the caller sends again."""
        if not self._sha:
            await self.load()
        target: Any = self._redis
        if isinstance(target, RedisCluster):
            node = target.get_node_from_key(keys[0])
            if node is None:
                raise StoreUnavailable(f"no primary serves the slot of {keys[0]}")
            target = self._nodes.get(node.name)
            if target is None:
                target = aioredis.Redis(host=node.host, port=int(node.port))
                self._nodes[node.name] = target
        async with redis_errors(f"running {name.lower()} and waiting for {replicas} replicas"):
            for attempt in (0, 1):
                pipe = target.pipeline(transaction=False)
                pipe.evalsha(self._sha[name], len(keys), *keys, *args)
                pipe.execute_command("WAIT", replicas, timeout_ms)
                try:
                    reply, acked = await pipe.execute()
                    return reply, int(acked)
                except rexc.NoScriptError:
                    if attempt:
                        raise
                    self._sha[name] = await target.script_load(getattr(scripts, name))
                except rexc.ResponseError as exc:
                    if isinstance(self._redis, RedisCluster):
                        await self._redis.nodes_manager.initialize()  # MOVED, ASK, TRYAGAIN
                    raise StoreUnavailable(f"the table's slot moved: {exc}") from exc
        raise AssertionError("unreachable")

    async def close(self) -> None:
        for node in self._nodes.values():
            await node.aclose()
        self._nodes.clear()

    async def call(self, name: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        if not self._sha:
            await self.load()
        async with redis_errors(f"running {name.lower()}"):
            try:
                return await self._redis.evalsha(self._sha[name], len(keys), *keys, *args)
            except rexc.NoScriptError:  # Redis restarted and forgot the scripts
                self._sha[name] = await self._redis.script_load(getattr(scripts, name))
                return await self._redis.evalsha(self._sha[name], len(keys), *keys, *args)


async def check_settings(redis: Redis) -> None:
    """Refuse a Redis that could evict our keys or lose acknowledged writes, saying what to fix."""
    async with redis_errors("reading its configuration"):
        try:
            policy = _config(await redis.config_get("maxmemory-policy"), "maxmemory-policy")
            aof = _config(await redis.config_get("appendonly"), "appendonly")
        except rexc.ResponseError as exc:
            raise RedisMisconfigured(
                "cannot read the Redis configuration (CONFIG GET is refused: "
                f"{exc}); check by hand that maxmemory-policy is noeviction and appendonly is "
                "yes, then start with --skip-redis-checks"
            ) from exc
    problems = []
    if policy != "noeviction":
        problems.append(
            f"maxmemory-policy is {policy}, so Redis may evict game logs when memory runs "
            "short: set maxmemory-policy noeviction"
        )
    if aof != "yes":
        problems.append(
            "appendonly is off, so acknowledged commands can be lost in a crash: set "
            "appendonly yes (and appendfsync always or everysec)"
        )
    if problems:
        raise RedisMisconfigured("unsafe Redis settings: " + "; ".join(problems))


def _config(reply: Any, name: str) -> str:
    value = reply.get(name) if isinstance(reply, dict) else None
    if value is None and isinstance(reply, dict):
        value = reply.get(name.encode())
    if isinstance(value, bytes):
        value = value.decode()
    return str(value)
