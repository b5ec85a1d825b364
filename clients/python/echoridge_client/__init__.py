"""Echo Ridge Python client SDK: connections, views, bots and policies."""
