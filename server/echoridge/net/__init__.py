"""The websocket game server: connections, sessions, fan-out, metrics."""
