"""An in-memory message transport for TrustGraph's services: the one part of a deployment the
generator fakes.

It implements TrustGraph's ``AsyncPubSubBackend`` protocol (``create_producer``,
``create_consumer``; ``trustgraph/base/async_backend.py`` in trustgraph-base 2.11.1), so the
services' own flows, sender and receiver pools and request/response clients run unchanged.
Every message is put through TrustGraph's JSON wire encoding (``dataclass_to_dict`` and back),
as its Pulsar backend does. Topics that a stand-in service answers (LLM, stores, tools,
librarian) are dispatched to that service; every message is also written to ``self.log`` in
the order it was sent, which is what the manifest is made from.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict

from trustgraph.base.serialization import dataclass_to_dict, dict_to_dataclass


class WireMessage:
    """One delivered message: its decoded value and its properties (the request ``id``)."""

    def __init__(self, value, properties):
        self._value = value
        self._properties = dict(properties)

    def value(self):
        return self._value

    def properties(self):
        return self._properties


class MemoryConsumer:
    def __init__(self, queue):
        self.queue = queue

    async def receive(self, timeout_millis=None):
        return await self.queue.get()

    async def acknowledge(self, message):
        return None

    async def negative_acknowledge(self, message):
        return None

    async def unsubscribe(self):
        return None

    async def close(self):
        return None


class MemoryProducer:
    def __init__(self, backend, topic, schema):
        self.backend = backend
        self.topic = topic
        self.schema = schema

    async def send(self, message, properties=None):
        await self.backend.publish(self.topic, self.schema, message, properties or {})

    async def flush(self):
        return None

    async def close(self):
        return None


class MemoryBackend:
    """Topics held in memory. ``services`` maps a request topic to ``(handler, response
    topic)``: ``handler(value)`` is an async generator of response values, each sent back with
    the request's ``id``. ``log`` holds ``(topic, value, properties, time)`` for every message, ``time`` from
    ``stamp()`` (the deployment's clock)."""

    def __init__(self):
        self.subscribers = defaultdict(list)
        self.services = {}
        self.listeners = defaultdict(list)
        self.log = []
        self.pending = set()
        self.errors = []
        self.stamp = lambda: ""

    def serve(self, request_topic, response_topic, handler):
        self.services[request_topic] = (handler, response_topic)

    def listen(self, topic, callback):
        """Call ``callback(value, properties)`` for every message sent on ``topic``."""
        self.listeners[topic].append(callback)

    async def create_producer(self, topic, schema, **options):
        return MemoryProducer(self, topic, schema)

    async def create_consumer(self, topic, subscription, schema, initial_position="latest",
                              **options):
        queue = asyncio.Queue()
        self.subscribers[topic].append((queue, schema))
        return MemoryConsumer(queue)

    async def publish(self, topic, schema, message, properties):
        wire = json.loads(json.dumps(dataclass_to_dict(message)))
        value = dict_to_dataclass(wire, schema) if schema is not None else message
        self.log.append((topic, value, dict(properties), self.stamp()))
        for callback in self.listeners.get(topic, []):
            await callback(value, properties)
        for queue, sub_schema in self.subscribers.get(topic, []):
            await queue.put(WireMessage(dict_to_dataclass(wire, sub_schema), properties))
        if topic in self.services:
            task = asyncio.ensure_future(self._answer(topic, value, properties))
            self.pending.add(task)
            task.add_done_callback(self.pending.discard)

    async def _answer(self, topic, value, properties):
        handler, response_topic = self.services[topic]
        try:
            async for response in handler(value):
                await self.publish(response_topic, type(response), response,
                                   {"id": properties.get("id", "")})
        except Exception as error:  # a stand-in's fault must stop the run, not hang it
            self.errors.append((topic, error))
            raise

    async def create_topic(self, topic):
        return None

    async def delete_topic(self, topic):
        return None

    async def topic_exists(self, topic):
        return True

    async def ensure_topic(self, topic):
        return None

    async def close(self):
        return None
