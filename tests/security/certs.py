"""Test certificates made with the openssl command: a floor CA, broker certificates, client certificates."""

from __future__ import annotations

import subprocess
from pathlib import Path

OPENSSL = "openssl"
EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


class FloorCA:
    """A CA in `directory` that signs broker (with subjectAltName) and client (common name) certificates."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.cert, self.key = self.directory / "ca.crt", self.directory / "ca.key"
        run([OPENSSL, "req", "-x509", *EC_KEY, "-keyout", str(self.key), "-out", str(self.cert), "-days", "2",
             "-subj", "/CN=tablehw test floor CA"])

    def issue(self, name: str, common_name: str, alt_names: str | None = None) -> tuple[Path, Path]:
        """(certificate, key) for `common_name`; `alt_names` e.g. "DNS:localhost,IP:127.0.0.1"."""
        key, csr, cert = (self.directory / f"{name}.{ext}" for ext in ("key", "csr", "crt"))
        run([OPENSSL, "req", *EC_KEY, "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={common_name}"])
        extra = []
        if alt_names:
            ext = self.directory / f"{name}.ext"
            ext.write_text(f"subjectAltName={alt_names}\n")
            extra = ["-extfile", str(ext)]
        run([OPENSSL, "x509", "-req", "-in", str(csr), "-CA", str(self.cert), "-CAkey", str(self.key),
             "-CAcreateserial", "-out", str(cert), "-days", "2", *extra])
        key.chmod(0o644)  # mosquitto drops to another user when started as root
        return cert, key


def run(args: list[str]) -> None:
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])}: {done.stderr.strip()}")
