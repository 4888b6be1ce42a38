"""The back-office ledger: books every table's rounds exactly once from the MQTT contract (docs/ledger.md).

It consumes only what the controllers publish (docs/mqtt.md) and never imports the round engine:

    intake.py      paho callbacks -> a queue; acknowledges a message only once it is booked
    inbound.py     a message (topic, exact bytes) checked against the contract
    booking.py     one batch of messages -> the books, in one transaction (dedupe, anomalies)
    links.py       prev_seq links and journal chains: gaps opened and filled, contradictions
    warden.py      one instance at a time: anchors, alarms, gap filling, tail audits
    catch_up.py    "messages since seq N" requests to a controller, paged
    report.py      the books per table and shift, slot payback, the floor total
    report_calibrations.py  the report's dice camera calibrations: in use, and the changes told
"""
