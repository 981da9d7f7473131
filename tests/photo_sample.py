"""A camera's JPEG for the photo tests (survey, store, sync, export, report, UI): a plain image
with the EXIF a field camera writes (time taken, GPS position, compass direction)."""

from __future__ import annotations

from PIL import Image


def jpeg(path, size=(640, 480), when=None, gps=None, direction=None):
    """Write a JPEG of ``size`` pixels to ``path`` (returned) with EXIF ``when`` (DateTimeOriginal
    text, ``"YYYY:MM:DD HH:MM:SS"``), ``gps`` ((lat, lon) degrees, as D/M/S) and ``direction``
    (GPSImgDirection, degrees true)."""
    im = Image.new("RGB", size, (90, 140, 60))
    exif = Image.Exif()
    if when is not None:
        exif[0x8769] = {36867: when}
    if gps is not None or direction is not None:
        ifd = {}
        if gps is not None:
            (lat, lon) = gps

            def dms(v):
                v = abs(v)
                d = int(v)
                m = int((v - d) * 60)
                s = round(((v - d) * 60 - m) * 60, 4)
                return (float(d), float(m), float(s))
            ifd.update({1: "N" if lat >= 0 else "S", 2: dms(lat), 3: "E" if lon >= 0 else "W", 4: dms(lon)})
        if direction is not None:
            ifd.update({16: "T", 17: float(direction)})
        exif[0x8825] = ifd
    im.save(path, "JPEG", exif=exif.tobytes(), quality=90)
    return path
