"""The dice camera of a table: a frame loop that never waits, and a vision worker that reads and judges.

Two threads, one queue. The **camera** thread takes every frame (30 fps) and does only the cheap part
of vision (`ThrowWatcher.observe`: motion, the throw's track, which frames to read) plus, while bets
are open, the at-rest test that picks still frames for the empty-table model; it hands frames to the
worker and never blocks on it. The **vision** worker reads the frames it is given (`DiceReader`
against the empty-table model), collects the agreeing readings, judges the throw, encodes the
evidence and puts the `DiceSeen` on the engine's inbox — the engine thread stays the one owner of
game state. The evidence is drawn and encoded ahead, while the last frame of the rest is still to
come: on the frame before it, with the outcome the readings so far give (`ThrowWatcher.foresee`);
when the last reading agrees, that image is the evidence, else the last frame is drawn and encoded.
Between throws the worker checks the frames offered for the model (`EmptyTable.offer`).

A read is declined (void `uncertain`, the dealer throws again or enters the result) when the model is
missing or no longer fits the table: the slow read without a model is never used here.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from drivers.errors import DeviceError

from .camera_health import CameraHealth
from .camera_validation import (FELT_OVERRIDE, TILT_OVERRIDE, calibration_notice, felt_refused, frame_fault,
                                tilt_refused)
from .evidence import EvidenceStore
from .free_memory import release_free_memory
from .rounds.inputs import DeviceNotice, DiceSeen

log = logging.getLogger(__name__)

VISION_GAMES = {"craps": "craps", "banca_francesa": "banca-francesa", "cussec": "cussec", "paikao": "paikao"}
# The dice are thrown (or P'ai Kao's bowl shaken and lifted off them): a rest counts only after motion.
THROWN = {"craps", "banca_francesa", "paikao"}
REST_SECONDS = 0.3  # the dice must lie still this long (9 frames at 30 fps); 3 reads spread over it
READS = 3
OFFER_EVERY_S = 0.5  # while bets are open, a still frame is offered to the empty-table model this often
MARKERS_EVERY_S = 5.0  # while no throw is watched, the markers are looked for this often (has the camera moved?)


@dataclass(frozen=True, slots=True)
class Throw:
    """The throw being watched: the engine's round and attempt, and which arming of the camera."""

    round_no: int
    attempt: int
    arming: int


@dataclass(frozen=True, slots=True)
class Timing:
    """When the camera saw the frame that completed a rest, and when its result left for the engine."""

    round_no: int
    attempt: int
    rest_frame: float  # monotonic time of capture of the frame completing the at-rest window
    sent: float  # monotonic time the DiceSeen was put on the engine's inbox
    read_ms: float  # time the worker spent reading the last requested frame
    evidence_ahead: bool  # the evidence was encoded before the last frame came (it agreed)


def warm_up(reader) -> None:
    """Run each network once: its first forward allocates, and would otherwise land on the first throw."""
    from vision.face_crops import CROP_PX
    from vision.pose_net import POSE_PX

    if reader.classifier is not None:
        reader.classifier.classify(np.zeros((1, CROP_PX, CROP_PX, 3), np.uint8))
    if reader.pose_net is not None:
        reader.pose_net.net.forward(np.zeros((1, 4, POSE_PX, POSE_PX), np.float32))  # 3 colours + view tangent


# OpenCV's own worker threads, off: vision runs in the camera thread and the vision worker, one core each, as
# `make bench` times a read (2026-12-05, this machine: with OpenCV's default pool a read of the speed rigs took
# 0.5-0.6 ms less wall time and 51-60% more CPU; the at-rest check the same either way).
OPENCV_THREADS = 1


def vision_for(game: str, calibration, *, fps: float, photo: tuple | None = None):
    """The reader, watcher and empty-table model a dice table of `game` uses, built from its calibration; OpenCV
    set to OPENCV_THREADS for the process (a setting of the whole process: the service's vision is all here).
    `photo`: the calibration's empty-table photo as `empty_table_photo()` gives it (read here when not given)."""
    import cv2

    from vision.at_rest import AtRestDetector
    from vision.dice_reader import DiceReader
    from vision.empty_table import EmptyTable
    from vision.throw_judge import rules_for
    from vision.throw_watch import ThrowWatcher

    cv2.setNumThreads(OPENCV_THREADS)
    photo = photo if photo is not None else calibration.empty_table_photo()
    empty = None if photo is None else photo[0]
    reader = DiceReader(calibration, background=empty)
    region = calibration.search_mask(*calibration.image_size, 0.25)  # motion and changes count on the table only
    window = max(1, round(REST_SECONDS * fps))
    watcher = ThrowWatcher(reader, rules_for(VISION_GAMES[game]), detector=AtRestDetector(window, region=region),
                           reads=READS, needs_motion=game in THROWN)
    return watcher, EmptyTable(empty, region=region), AtRestDetector(window, region=region)


class DiceCamera:
    """The camera thread and the vision worker of one dice table."""

    def __init__(self, game: str, evidence: EvidenceStore, calibration, *, fps: float = 30.0,
                 unvalidated_felt_ok: bool = False, unvalidated_tilt_ok: bool = False) -> None:
        self.game = game
        refused = tilt_refused(calibration, unvalidated_tilt_ok)
        if refused is not None:  # before anything is built: the calibration alone tells
            raise DeviceError(f"{refused}; {TILT_OVERRIDE}")
        self.evidence = evidence
        from vision.camera_moved import MarkerWatch

        photo = calibration.empty_table_photo()
        self.watcher, self.empty_table, self.idle = vision_for(game, calibration, fps=fps, photo=photo)
        self.calibration_notice = calibration_notice(calibration, None if photo is None else photo[1])
        self.reader = self.watcher.reader
        self.unvalidated_felt_ok = unvalidated_felt_ok
        self._felt: str | None = None  # why reads are declined while the felt is not one the reader was validated on
        if self.empty_table.frame is not None:
            refused = felt_refused(self.empty_table.frame, calibration, unvalidated_felt_ok)
            if refused is not None:
                raise DeviceError(f"{refused}; {FELT_OVERRIDE}")
        self.markers = MarkerWatch(calibration, self.empty_table.frame)  # its places in the calibration photo
        if self.reader.lamp_spots is not None:
            self.reader.lamp_spots.when_learned = self._lamp_learned
        for net in (self.reader.classifier, self.reader.pose_net):
            if net is not None:  # which networks read this table's dice: in the log of every start
                log.info("camera: %s %s sha256 %s, kernels %s", type(net).__name__, net.weights.name, net.net.sha256,
                         net.net.precision)  # vision/onnx_net.py: exact on this CPU, or not loaded
        self.sink: Callable[[Any], None] = lambda item: None
        self.frames: Callable[[], Any] = lambda: None
        self.timings: deque[Timing] = deque(maxlen=1000)
        self.read_ms: deque[float] = deque(maxlen=1000)  # every read the worker made (wall time)
        self.frames_taken = 0
        self._jobs: queue.Queue = queue.Queue()
        self._lock = threading.Lock()  # the watcher's two halves and the arming
        self._throw: Throw | None = None
        self._armings = 0
        self._clear = False
        self._clear_changes = 0
        self._idle_seen = 0
        self._offered = 0.0
        self._markers_looked = -math.inf
        self._moved: str | None = None  # why reads are declined while the camera is off its calibration (worker)
        self._markers_seen_at: tuple | None = None  # the throw and rest whose markers were looked at (worker)
        self._ahead: tuple[Throw, int, Any, bytes] | None = None  # the vision worker's evidence encoded ahead
        self._running = threading.Event()
        self._threads: list[threading.Thread] = []
        self.health = CameraHealth(lambda item: self.sink(item))  # lost / degraded / connected, one owner
        self._failed_logged = -math.inf

    def start(self, frames: Callable[[], Any], sink: Callable[[Any], None]) -> None:
        """`frames()` gives the camera (a FrameSource) or None while it is not there."""
        self.frames, self.sink = frames, sink
        sink(self.calibration_notice)  # journaled and published: what this start reads with, off the Pi
        if self.empty_table.frame is None:
            log.error("camera: the calibration has no empty-table frame; reads are declined until a model is "
                      "learned while bets are open (run `tablehw vision calibrate` on the empty table)")
        self._running.set()
        self._threads = [threading.Thread(target=self._camera_loop, name="camera", daemon=True),
                         threading.Thread(target=self._vision_loop, name="vision", daemon=True)]
        for t in self._threads:
            t.start()

    def _lamp_learned(self, x: float, y: float) -> None:
        """The reader learned where a lamp is mirrored in the dice's top faces (vision/lamp_spots.py): dice lying there
        are declined from now on, so the floor is told where, and what would end it (a notice on `events`)."""
        tx, ty = self.reader.calibration.to_table(x, y)
        self.sink(DeviceNotice(
            "camera", "lamp_mirrored",
            f"a lamp is mirrored in the dice's top faces at pixel ({x:.0f}, {y:.0f}), about ({tx:.0f}, {ty:.0f}) mm on "
            "the felt: dice lying there are declined (void uncertain) until the lamp is moved or the camera and lamp "
            "are cross-polarised (docs/vision.md, Installation)",
            {"pixel": [round(x), round(y)], "table_mm": [round(tx), round(ty)]}))

    def stop(self) -> None:
        self._running.clear()
        for t in self._threads:
            t.join(5)

    def arm(self, round_no: int, attempt: int) -> None:
        """Watch the next throw and report it as this round's attempt."""
        with self._lock:
            self._armings += 1
            self._throw = Throw(round_no, attempt, self._armings)
            self.watcher.start()

    def table_clear(self, clear: bool) -> None:
        """Whether the table should be empty now (bets open, dice with the shooter): the model may learn,
        and a throw still watched is over (its round went on without it)."""
        with self._lock:
            if clear:
                self._throw = None
            self._clear = clear
            self._clear_changes += 1  # the camera thread starts its still count again

    # --- the camera thread ----------------------------------------------------------------------
    def _camera_loop(self) -> None:
        while self._running.is_set():
            camera = self.frames()
            if camera is None:
                self._running.wait(0.1)
                continue
            try:
                frame = camera.read()
            except Exception as exc:  # DeviceError, or a capture failing its own way: lost, never the loop's end
                if not isinstance(exc, DeviceError):
                    log.exception("camera: reading a frame failed")
                self.health.fault("capture", "lost", str(exc) or type(exc).__name__)
                self._running.wait(1.0)
                continue
            self.health.fine("capture", "frames again")
            self.frames_taken += 1
            if self._frames_fit(frame.image):
                self._take_guarded(frame)

    def _frames_fit(self, image) -> bool:
        """Whether a frame is what the calibration was made for (BGR, its size). Frames that are not are skipped, and
        the camera is `degraded`, saying why, until they fit again: a camera that came back at another resolution (its
        settings not taken) would otherwise read every throw against the wrong table."""
        fault = frame_fault(image, self.reader.calibration)
        if fault is None:
            self.health.fine("frames", "frames fit the calibration again")
            return True
        if self.health.fault("frames", "degraded", fault):
            log.error("camera: %s", fault)
        return False

    def _take_guarded(self, frame) -> None:
        """`_take`, the camera thread outliving a frame it fails on (logged at most once a minute): the throw it
        belonged to is voided by the engine's reading timeout, as a read that failed in the worker."""
        try:
            self._take(frame)
        except Exception:
            now = time.monotonic()
            if now - self._failed_logged >= 60.0:
                self._failed_logged = now
                log.exception("camera: watching failed on a frame (told at most once a minute)")

    def _take(self, frame) -> None:
        with self._lock:
            throw, clear, changes = self._throw, self._clear, self._clear_changes
            request = self.watcher.observe(frame.image) if throw is not None else None
        if request is not None:
            self._jobs.put((throw, request, frame))
            return
        if throw is None and time.monotonic() - self._markers_looked >= MARKERS_EVERY_S and self._jobs.empty():
            self._markers_looked = time.monotonic()
            self._jobs.put((None, "markers", frame))
        if changes != self._idle_seen:
            self._idle_seen = changes
            self.idle.reset()
        if throw is None and clear and self.idle.update(frame.image):
            now = time.monotonic()
            if now - self._offered >= OFFER_EVERY_S and self._jobs.empty():
                self._offered = now
                self._jobs.put((None, None, frame))

    # --- the vision worker ----------------------------------------------------------------------
    def _vision_loop(self) -> None:
        warm_up(self.reader)
        while self._running.is_set():
            try:
                throw, request, frame = self._jobs.get(timeout=0.1)
            except queue.Empty:
                continue
            try:
                if request == "markers":
                    self._look_at_markers(frame.image)
                elif throw is None:
                    self._offer(frame.image)
                else:
                    self._read(throw, request, frame)
            except Exception:  # the worker must outlive one bad frame; the engine's timeout voids the throw
                log.exception("camera: vision failed on a frame")

    def _look_at_markers(self, image: np.ndarray, quick: bool = False) -> None:
        """Whether the camera moved since its calibration (vision/camera_moved.py): while it is off, the camera is
        `degraded` and reads are declined (a die placed on the table where it is not is judged at the wrong place);
        markers found in place again end it. Markers covered change nothing."""
        check = self.markers.check(image, quick)
        if check.moved:
            self._moved = (f"the camera moved since its calibration ({check.describe()}): put it back, or calibrate "
                           "again (tablehw vision calibrate)")
            if self.health.fault("calibration", "degraded", f"reads declined: {self._moved}"):
                log.error("camera: %s", self._moved)
        elif check.in_place:
            if self._moved is not None:
                log.warning("camera: the markers are where the calibration puts them again")
            self._moved = None
            self.health.fine("calibration", "the markers are where the calibration puts them again")

    def _check_felt(self, image: np.ndarray) -> None:
        """The felt of a live frame (`felt_refused`), kept in `_felt`: while refused, reads are declined and the camera
        is `degraded` saying why."""
        self._felt = felt_refused(image, self.reader.calibration, self.unvalidated_felt_ok)
        if self._felt is not None:
            if self.health.fault("felt", "degraded", f"reads declined: {self._felt}"):
                log.error("camera: %s", self._felt)
        else:
            self.health.fine("felt", "the felt is one the reader was validated on")

    def _offer(self, image: np.ndarray) -> None:
        with self._lock:
            if self._throw is not None or not self._clear:
                return  # bets closed meanwhile: the table is no longer clear
        if self._moved is not None:
            return  # no model follows a moved camera; the look every MARKERS_EVERY_S says when it is back
        if self.empty_table.may_complete(image):  # no new model may follow a camera that moved
            self._look_at_markers(image)
            if self._moved is not None:
                self.empty_table.drop_samples()  # some were taken since it moved
                return
        if self.empty_table.offer(image, self.reader):
            model = self.empty_table
            log.info("camera: empty-table model %d (%s)", model.version, model.how)
            self.health.fine("model", f"a new empty-table model ({model.how})")
            self._check_felt(model.frame)  # a felt changed, or a calibration photo not of this table
            if model.how == "replaced":  # from frames nothing could check: the floor is told (and the journal keeps it)
                self.sink(DeviceNotice(
                    "camera", "empty_table_replaced",
                    f"the camera's empty-table model was {'made' if model.version == 1 else 'replaced'} (model "
                    f"{model.version}) from {model.samples} still "
                    "frames taken while bets were open, with nothing to check them against (lights changed? camera "
                    "moved?): a die lying on the table then is part of the model, and one thrown onto that spot is "
                    "missed (the count voids its throw) until the next refresh",
                    {"model": model.version}))

    def _read(self, throw: Throw, request, frame) -> None:
        with self._lock:
            if self._throw != throw or request.epoch != self.watcher.epoch:
                return  # the dice moved again, or another throw is watched: this frame no longer counts
        from vision.reading import Reading

        if self._moved is None and self._markers_seen_at != (throw, request.epoch):
            # The first frame of each rest: a camera knocked during the throw moved the image, so it starts a new
            # rest, looked at again, quickly (about 10 ms); the first read waits on it, not the last. The felt too
            # (2 ms): a calibration photo edited to a felt it is not passes the start, not the live table.
            self._markers_seen_at = (throw, request.epoch)
            self._look_at_markers(frame.image, quick=True)
            self._check_felt(frame.image)
        started = time.perf_counter()
        unfit = self._moved or self._felt
        if unfit is None:
            unfit = self.empty_table.unfit(frame.image)
            if unfit is None:
                self.health.fine("model", "reads against an empty-table model that fits again")
            else:
                self.health.fault("model", "degraded", f"reads declined: {unfit}")
        # Told what the model holds (a chip on the layout), the judge voids a throw that finds anything there.
        reading = self.empty_table.seen(self.reader.read(frame.image)) if unfit is None else Reading(())
        read_ms = (time.perf_counter() - started) * 1000
        if unfit is None:
            self.read_ms.append(read_ms)
        with self._lock:
            if self._throw != throw:
                return
            if request.final and unfit:
                outcome = self.watcher.decline(unfit)
            else:
                outcome = self.watcher.collect(request, reading)
            foreseen = self.watcher.foresee() if outcome is None else None
            if outcome is not None:
                self._throw = None
        if outcome is None:
            if foreseen is not None:
                self._ahead = (throw, request.epoch, foreseen, self._encoded(throw, frame.image, foreseen))
            return
        jpeg, ahead = self._evidence_image(throw, request.epoch, frame.image, outcome)
        self.sink(self._seen(throw, jpeg, outcome))
        self.timings.append(Timing(throw.round_no, throw.attempt, frame.mono, time.monotonic(), read_ms, ahead))
        release_free_memory()  # the throw's result is handed on: its buffers go back (firmware_host/free_memory.py)

    def _encoded(self, throw: Throw, image: np.ndarray, outcome) -> bytes:
        """The evidence image: the frame annotated with the reading and the verdict, stamped (with the calibration read
        with too), as JPEG."""
        from vision.evidence import annotate

        return self.evidence.encode_frame(self.game, throw.round_no, throw.attempt,
                                          annotate(image, outcome.reading, outcome.verdict),
                                          self.reader.calibration.sha256)

    def _evidence_image(self, throw: Throw, epoch: int, image: np.ndarray, outcome) -> tuple[bytes, bool]:
        """The evidence encoded ahead when the last reading agreed with it (same reading, same verdict), else
        the last frame's; and whether it was the one encoded ahead."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            their_throw, their_epoch, foreseen, jpeg = ahead
            if (their_throw, their_epoch) == (throw, epoch) and foreseen.verdict == outcome.verdict \
                    and foreseen.reading == outcome.reading:
                return jpeg, True
        return self._encoded(throw, image, outcome), False

    def _seen(self, throw: Throw, jpeg: bytes, outcome) -> DiceSeen:
        verdict = outcome.verdict
        evidence = self.evidence.save_encoded(self.game, throw.round_no, throw.attempt, jpeg)
        faces = tuple(verdict.values) if verdict.valid and verdict.values else None
        reason = None if verdict.valid else (verdict.reason.value if verdict.reason else "uncertain")
        detail = {"detail": verdict.detail} | ({"declined": verdict.declined} if verdict.declined else {})
        return DiceSeen(throw.round_no, throw.attempt, faces, reason, evidence, detail)
