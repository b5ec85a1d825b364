"""One process's storage: the Redis connections, the log, the directory and the follower."""

from __future__ import annotations

import asyncio
import contextlib

from redis.asyncio.cluster import RedisCluster

from echoridge.store.archive import Archive
from echoridge.store.chat import ChatFollower, ChatStore
from echoridge.store.clockindex import ClockIndex
from echoridge.store.clusterfollow import ClusterChatFollower, ClusterFollower
from echoridge.store.connection import (
    Redis,
    Scripts,
    check_settings,
    client,
    cluster_client,
    is_cluster,
    redis_errors,
)
from echoridge.store.directory import Directory
from echoridge.store.follow import Follower
from echoridge.store.identities import Identities
from echoridge.store.log import EventStore
from echoridge.store.moderation import Moderation
from echoridge.store.presence import PresenceStore
from echoridge.store.quota import Quotas
from echoridge.store.ratingstore import RatingStore


class Storage:
    def __init__(self, redis: Redis, reader: Redis, replica_acks: int = 0) -> None:
        self.redis = redis
        self.reader = reader  # the follower's own connection (XREAD BLOCK holds it)
        self.scripts = Scripts(redis)
        self.log = EventStore(redis, self.scripts, replica_acks)
        self.directory = Directory(redis, self.scripts)
        self.quotas = Quotas(redis, self.scripts)  # tables per client (store/quota.py)
        self.follower: Follower = (
            ClusterFollower(self.log, redis)
            if isinstance(redis, RedisCluster)
            else Follower(self.log, reader)
        )
        self.presence = PresenceStore(redis, self.scripts)
        self.archive = Archive(redis, self.scripts)  # finished games (archive.py)
        self.clocks = ClockIndex(redis)
        self.chat = ChatStore(redis)
        self.identities = Identities(redis)  # players' identities (identities.py)
        self.ratings = RatingStore(redis)  # ratings, computed from the archive (ratingstore.py)
        self.moderation = Moderation(redis)  # reports, blocks, bans, audit (moderation.py)
        self.chat_follower: ChatFollower = (
            ClusterChatFollower(redis)
            if isinstance(redis, RedisCluster)
            else ChatFollower(redis, reader)  # its own connection of reader's pool
        )

    async def answers(self, timeout: float = 1.0) -> bool:
        """Whether Redis answers a PING within ``timeout`` seconds (``/readyz``)."""
        try:
            async with asyncio.timeout(timeout):
                await self.redis.ping()
        except Exception:  # (any failure to answer is "not ready": errors, timeouts, sockets)
            return False
        return True

    @classmethod
    async def open(cls, url: str, check: bool = True, replica_acks: int = 0) -> Storage:
        """Connect to the Redis at ``url`` (``redis+cluster://``: a cluster); with ``check``,
        refuse one that could evict keys or lose acknowledged writes (RedisMisconfigured says
        what to change).  ``replica_acks``: appends are acknowledged once on that many
        replicas (WAIT)."""
        if is_cluster(url):  # (the follower listens on connections of its own: clusterfollow.py)
            cluster = cluster_client(url)
            storage = cls(cluster, cluster, replica_acks)  # type: ignore[arg-type]
        else:
            # The follower's connection waits in XREAD BLOCK: no client-side read timeout on it.
            storage = cls(client(url), client(url, socket_timeout=None), replica_acks)
        try:
            async with redis_errors("connecting"):
                await storage.redis.ping()
            if check:
                await check_settings(storage.redis)
            await storage.scripts.load()
            await storage.follower.start()
        except BaseException:
            await storage.close()
            raise
        return storage

    async def close(self) -> None:
        await self.follower.stop()
        await self.chat_follower.stop()
        with contextlib.suppress(Exception):
            await self.scripts.close()
        for conn in {id(c): c for c in (self.redis, self.reader)}.values():
            with contextlib.suppress(Exception):
                await conn.aclose()
