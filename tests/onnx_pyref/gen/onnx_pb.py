"""A minimal protobuf writer for the ONNX messages the generator needs (ModelProto, TensorProto,
SequenceProto, MapProto): Debian's python3-onnx is not needed. Field numbers from onnx.proto and
onnx-data.proto."""
import struct

FLOAT, UINT8, INT32, INT64, STRING, DOUBLE = 1, 2, 6, 7, 8, 11
ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_TENSOR, ATTR_FLOATS, ATTR_INTS, ATTR_STRINGS = 1, 2, 3, 4, 6, 7, 8
SEQ_TENSOR, SEQ_MAP = 1, 4


def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, n):
    return varint(num << 3) + varint(n)


def field_bytes(num, data):
    if isinstance(data, str):
        data = data.encode('utf-8')
    return varint(num << 3 | 2) + varint(len(data)) + data


def field_float(num, v):
    return varint(num << 3 | 5) + struct.pack('<f', v)


def tensor(name, dtype, dims, values):
    """TensorProto: numbers as raw_data (little-endian), strings as string_data."""
    out = b''.join(field_varint(1, d) for d in dims) + field_varint(2, dtype)
    if name:
        out += field_bytes(8, name)
    values = list(values)
    if dtype == STRING:
        out += b''.join(field_bytes(6, s) for s in values)
    else:
        fmt = {FLOAT: 'f', UINT8: 'B', INT32: 'i', INT64: 'q', DOUBLE: 'd'}[dtype]
        out += field_bytes(9, struct.pack('<%d%s' % (len(values), fmt), *values))
    return out


def map_proto(name, key_type, keys, value_type, values):
    """MapProto: keys, and the values as a SequenceProto of scalar tensors (as
    onnx.numpy_helper.from_dict writes them)."""
    out = field_bytes(1, name) if name else b''
    out += field_varint(2, key_type)
    for k in keys:
        out += field_varint(3, k) if key_type == INT64 else field_bytes(4, k)
    seq = field_varint(2, SEQ_TENSOR) + b''.join(
        field_bytes(3, tensor('', value_type, [], [v])) for v in values)
    return out + field_bytes(5, seq)


def sequence_of_maps(name, maps):
    out = field_bytes(1, name) if name else b''
    out += field_varint(2, SEQ_MAP)
    return out + b''.join(field_bytes(6, m) for m in maps)


# ---- types ----
def tensor_type(dtype, dims=None):
    t = field_varint(1, dtype)
    if dims is not None:
        shape = b''
        for d in dims:
            dim = field_bytes(2, d) if isinstance(d, str) else field_varint(1, d)
            shape += field_bytes(1, dim)
        t += field_bytes(2, shape)
    return field_bytes(1, t)


def map_type(key_type, value_type):
    return field_bytes(5, field_varint(1, key_type) + field_bytes(2, tensor_type(value_type)))


def seq_type(elem):
    return field_bytes(4, field_bytes(1, elem))


def value_info(name, type_bytes):
    return field_bytes(1, name) + field_bytes(2, type_bytes)


# ---- attributes, nodes, models ----
def attribute(name, value):
    out = field_bytes(1, name)
    if isinstance(value, float):
        return out + field_varint(20, ATTR_FLOAT) + field_float(2, value)
    if isinstance(value, int):
        return out + field_varint(20, ATTR_INT) + field_varint(3, value)
    if isinstance(value, str):
        return out + field_varint(20, ATTR_STRING) + field_bytes(4, value)
    if isinstance(value, bytes):  # a TensorProto (tensor(...))
        return out + field_varint(20, ATTR_TENSOR) + field_bytes(5, value)
    if all(isinstance(v, str) for v in value):
        return out + field_varint(20, ATTR_STRINGS) + b''.join(field_bytes(9, v) for v in value)
    if all(isinstance(v, int) for v in value):
        return out + field_varint(20, ATTR_INTS) + b''.join(field_varint(8, v) for v in value)
    return out + field_varint(20, ATTR_FLOATS) + b''.join(field_float(7, v) for v in value)


def node(op_type, inputs, outputs, domain='', **attrs):
    out = b''.join(field_bytes(1, i) for i in inputs) + b''.join(field_bytes(2, o) for o in outputs)
    out += field_bytes(4, op_type)
    if domain:
        out += field_bytes(7, domain)
    return out + b''.join(field_bytes(5, attribute(k, v)) for k, v in attrs.items())


def model(nodes, inputs, outputs, opsets, initializers=()):
    """inputs / outputs: ValueInfoProto bytes; opsets: {domain: version}."""
    graph = b''.join(field_bytes(1, n) for n in nodes) + field_bytes(2, 'g')
    graph += b''.join(field_bytes(5, t) for t in initializers)
    graph += b''.join(field_bytes(11, i) for i in inputs) + b''.join(field_bytes(12, o) for o in outputs)
    out = field_varint(1, 9) + field_bytes(2, 'kiln tests/onnx_pyref/gen')
    for domain, version in opsets.items():
        out += field_bytes(8, (field_bytes(1, domain) if domain else b'') + field_varint(2, version))
    return out + field_bytes(7, graph)
