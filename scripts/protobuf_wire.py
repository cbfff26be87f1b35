"""A minimal protobuf wire-format reader for the coverage scripts (scripts/onnx-coverage.py,
scripts/opsets-edges.py): they read ModelProto / TensorProto fields without the onnx package."""


def read_varint(buf, pos):
    """The varint at buf[pos]: (value, position after it)."""
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """[(field number, wire type, value)] of one message: ints for varints, bytes otherwise."""
    out, pos = [], 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = read_varint(buf, pos)
            value, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        out.append((number, wire, value))
    return out
