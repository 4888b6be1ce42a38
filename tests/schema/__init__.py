"""JSON Schemas of the config and the MQTT payloads (docs/schema/): current, and what the wire and the docs carry."""
