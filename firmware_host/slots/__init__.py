"""Slot machines on the floor: SAS meters checked for integrity, payback monitored, jackpot pools funded,
all journalled and published to the floor system (docs/sas.md).

Flow: `drivers.sas.poller` (a thread per port) -> `service.SlotService` (one loop owns the state) ->
`integrity` (deltas modulo BCD size, backwards meters, self-audit) -> `payback` and `pools` (pure) ->
`ledger` (events applied to the state, journalled, checkpointed) -> `floor` (MQTT topics and payloads).
"""
