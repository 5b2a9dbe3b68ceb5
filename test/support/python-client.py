"""The official Python SDK's client (PyPI `mcp`) against an MCP endpoint, for test/http/clients.test.ts.

Usage: python python-client.py <url> session|client|subscribe [low-level]

- `session`: `ClientSession` over `streamable_http_client`, opened with `initialize()` (the
  2025-era handshake, as hosts built on the session API connect).
- `client`: `Client(url)` at its defaults (`mode="auto"` probes `server/discover`).

Either way it lists tools, calls `add`, reads `info://server`, gets the `summarize` prompt, calls
`delete_record` (confirmed through the elicitation callback) and `get_weather` (structured
content), and prints what it saw as one line of JSON. Anything that fails raises (exit status 1).

With `low-level`, it exercises test/fixture-sdk/low-level's notes server instead (for
test/http/sdk-low-level.test.ts): lists tools, calls `add` (structured content), reads
`notes://gamma`, gets `summarize`, and calls `delete_note` (confirmed through the callback).

- `subscribe`: `ClientSession` at its defaults subscribes to `notes://all`, waits until its own GET
  stream is open (the SDK logs it), prints `{"ready": ..., "subscribe": <advertised>}`, then waits
  (30 s at most) for `notifications/resources/updated` and prints `{"updated": <uri>}`.
"""

import asyncio
import json
import logging
import sys

from mcp import types
from mcp.client import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

asked = []


async def on_elicit(context, params):
    asked.append(params.message)
    content = {"confirm": True} if LOW_LEVEL else {"confirm": True, "reason": "cleanup"}
    return types.ElicitResult(action="accept", content=content)


def texts(result):
    return [block.text for block in result.content]


async def exercise(peer, protocol_version):
    weather = await peer.call_tool("get_weather", {"city": "Oslo"})
    prompt = await peer.get_prompt("summarize", {"text": "MCP"})
    resource = await peer.read_resource("info://server")
    return {
        "protocolVersion": protocol_version,
        "tools": [tool.name for tool in (await peer.list_tools()).tools],
        "add": texts(await peer.call_tool("add", {"a": 2, "b": 3})),
        "resource": {"uri": str(resource.contents[0].uri), "mimeType": resource.contents[0].mime_type},
        "prompt": prompt.messages[0].content.text,
        "delete": texts(await peer.call_tool("delete_record", {"id": "r-1"})),
        "asked": asked,
        "weather": weather.structured_content,
    }


async def exercise_low_level(peer, protocol_version):
    added = await peer.call_tool("add", {"a": 2, "b": 3})
    resource = await peer.read_resource("notes://gamma")
    prompt = await peer.get_prompt("summarize", {"note": "alpha", "style": "haiku"})
    return {
        "protocolVersion": protocol_version,
        "tools": [tool.name for tool in (await peer.list_tools()).tools],
        "add": added.structured_content,
        "resource": resource.contents[0].text,
        "prompt": prompt.messages[0].content.text,
        "delete": texts(await peer.call_tool("delete_note", {"name": "beta"})),
        "asked": asked,
    }


async def subscribe(url):
    loop = asyncio.get_running_loop()
    opened = asyncio.Event()
    heard = loop.create_future()

    class StreamOpened(logging.Handler):
        def emit(self, record):
            if record.getMessage() == "GET SSE connection established":
                loop.call_soon_threadsafe(opened.set)

    transport_log = logging.getLogger("mcp.client.streamable_http")
    transport_log.setLevel(logging.DEBUG)
    transport_log.addHandler(StreamOpened())

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification) and not heard.done():
            heard.set_result(str(message.params.uri))

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write, message_handler=on_message) as session:
            initialized = await session.initialize()
            await session.subscribe_resource("notes://all")
            await asyncio.wait_for(opened.wait(), 20)
            resources = initialized.capabilities.resources
            print(json.dumps({"ready": True, "subscribe": bool(resources and resources.subscribe)}), flush=True)
            print(json.dumps({"updated": await asyncio.wait_for(heard, 30)}), flush=True)


async def main(url, how):
    run = exercise_low_level if LOW_LEVEL else exercise
    if how == "subscribe":
        await subscribe(url)
    elif how == "session":
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
                initialized = await session.initialize()
                print(json.dumps(await run(session, initialized.protocol_version)))
    else:
        async with Client(url, elicitation_callback=on_elicit) as client:
            print(json.dumps(await run(client, client.protocol_version)))


LOW_LEVEL = sys.argv[3:4] == ["low-level"]
asyncio.run(main(sys.argv[1], sys.argv[2]))
