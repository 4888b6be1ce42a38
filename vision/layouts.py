"""Table layouts in millimetres: the felt, its walls, the middle line, the dome and the four ArUco markers.

One layout per game; the renderer draws them and the calibration maps the camera onto them.
Table coordinates: x to the right and y down as the camera sees the table, origin at the felt's
top-left corner. The thrower's side is x < middle line (craps).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import CalibrationError

ARUCO_DICTIONARY = "DICT_4X4_50"
Point = tuple[float, float]
Segment = tuple[Point, Point]


@dataclass(frozen=True, slots=True)
class Layout:
    """A table's geometry in millimetres."""

    name: str
    felt_mm: Point  # width, height of the felt (where dice may rest)
    die_mm: float  # die edge
    marker_mm: float  # ArUco marker side
    markers: dict[int, Point]  # marker id -> centre (mm); ids 0-3 clockwise from top-left
    rail_mm: float = 40.0  # the rail (wood) beyond the felt, up to the walls' outer edge
    walls: tuple[Segment, ...] = ()  # wall segments (mm) a die may hit
    middle: Segment | None = None  # the middle line (craps: dice must pass it)
    dome: tuple[Point, float] | None = None  # cussec / P'ai Kao: centre and radius (mm) of the dome or bowl
    lines: tuple[Segment, ...] = field(default=())  # printed layout lines (drawn by the renderer)

    @property
    def polygon(self) -> tuple[Point, ...]:
        w, h = self.felt_mm
        return ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h))

    def as_json(self) -> dict:
        return {
            "name": self.name, "felt_mm": list(self.felt_mm), "die_mm": self.die_mm, "marker_mm": self.marker_mm,
            "markers": {str(k): list(v) for k, v in self.markers.items()}, "rail_mm": self.rail_mm,
            "walls": [[list(a), list(b)] for a, b in self.walls],
            "middle": [list(self.middle[0]), list(self.middle[1])] if self.middle else None,
            "dome": [list(self.dome[0]), self.dome[1]] if self.dome else None,
            "lines": [[list(a), list(b)] for a, b in self.lines],
        }

    @classmethod
    def from_json(cls, doc: dict) -> "Layout":
        def pt(p) -> Point:
            return (float(p[0]), float(p[1]))

        try:
            return cls(
                name=str(doc["name"]), felt_mm=pt(doc["felt_mm"]), die_mm=float(doc["die_mm"]),
                marker_mm=float(doc["marker_mm"]), markers={int(k): pt(v) for k, v in doc["markers"].items()},
                rail_mm=float(doc.get("rail_mm", 40.0)),
                walls=tuple((pt(a), pt(b)) for a, b in doc.get("walls", [])),
                middle=(pt(doc["middle"][0]), pt(doc["middle"][1])) if doc.get("middle") else None,
                dome=(pt(doc["dome"][0]), float(doc["dome"][1])) if doc.get("dome") else None,
                lines=tuple((pt(a), pt(b)) for a, b in doc.get("lines", [])),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(f"layout: missing or malformed key: {exc}") from exc


def corner_markers(w: float, h: float, rail: float, size: float) -> dict[int, Point]:
    """Markers on the rail at the four corners, clockwise from top-left."""
    o = rail / 2.0
    return {0: (-o, -o), 1: (w + o, -o), 2: (w + o, h + o), 3: (-o, h + o)}


def box_walls(w: float, h: float) -> tuple[Segment, ...]:
    return (((0.0, 0.0), (w, 0.0)), ((w, 0.0), (w, h)), ((w, h), (0.0, h)), ((0.0, h), (0.0, 0.0)))


def craps() -> Layout:
    # The landing end of a craps table: the camera sees from the middle line's near side to the far wall.
    w, h, rail = 700.0, 380.0, 44.0
    # Walls: the two sides and the far end; the near edge of the view (x = 0) is open felt towards the shooter.
    walls = box_walls(w, h)[:3]
    return Layout("craps", (w, h), 19.0, 36.0, corner_markers(w, h, rail, 36.0), rail, walls,
                  middle=((200.0, 0.0), (200.0, h)),
                  lines=(((80.0, 30.0), (80.0, h - 30.0)), ((80.0, 30.0), (w - 30.0, 30.0)),
                         ((80.0, h - 30.0), (w - 30.0, h - 30.0)), ((420.0, 30.0), (420.0, h - 30.0))))


def banca_francesa() -> Layout:
    w, h, rail = 480.0, 270.0, 36.0
    return Layout("banca-francesa", (w, h), 14.0, 32.0, corner_markers(w, h, rail, 32.0), rail, box_walls(w, h),
                  lines=(((50.0, 35.0), (w - 50.0, 35.0)), ((50.0, h - 35.0), (w - 50.0, h - 35.0))))


def dome_table(name: str, radius: float) -> Layout:
    w, h = 4 * radius, 2 * radius + 30.0
    rail = 30.0
    return Layout(name, (w, h), 14.0, 24.0, corner_markers(w, h, rail, 24.0), rail, (),
                  dome=((w / 2.0, h / 2.0), radius))


LAYOUTS = {
    "craps": craps,
    "banca-francesa": banca_francesa,
    "cussec": lambda: dome_table("cussec", 120.0),
    "paikao": lambda: dome_table("paikao", 120.0),
}


def layout_for(game: str) -> Layout:
    """The default layout of a game; raises CalibrationError naming the known games."""
    try:
        return LAYOUTS[game]()
    except KeyError:
        raise CalibrationError(f"no layout for game {game!r}; known: {', '.join(sorted(LAYOUTS))}") from None
