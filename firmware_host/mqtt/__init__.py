"""MQTT for the table service: the paho link (link.py) and the contract's topics and payloads (contract.py)."""
