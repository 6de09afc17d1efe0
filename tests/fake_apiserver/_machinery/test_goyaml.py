"""YAML bodies resolve plain scalars as go-yaml v2 does (``fake_apiserver._machinery.goyaml``).

Each value below was sent by kube-apiserver v1.36 as both ``spec.holderIdentity`` (a string) and
``spec.leaseDurationSeconds`` (an int32) of a Lease in a YAML body; the expected answer is what
the real server said: which JSON type the value became (the field it failed on tells), or that
it was taken.
"""

from __future__ import annotations

import pytest

from tests.support.http_api import Api, serve

BOOL = 'json: cannot unmarshal bool into Go struct field LeaseSpec.spec.holderIdentity of type string'
NUMBER = 'json: cannot unmarshal number into Go struct field LeaseSpec.spec.holderIdentity of type string'
STRING = 'json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32'
FRAME = 'Lease in version "v1" cannot be handled as a Lease: '

# (the plain scalar, the real server's error after FRAME, or None when it created the Lease)
REAL_V1_36 = [
    ("n", BOOL), ("y", BOOL), ("Y", BOOL), ("N", BOOL), ("on", BOOL),
    ("0777", NUMBER), ("1e3", NUMBER), ("0x1F", NUMBER), ("08", NUMBER), ("+5", NUMBER), ("1_000", NUMBER),
    (".5", NUMBER), ("0b101", NUMBER), ("-0b11", NUMBER), ("99999999999999999999", NUMBER), ("0o17", NUMBER),
    ("1000.0", NUMBER), ("-0", NUMBER), ("0.0", NUMBER), ("1_", NUMBER),
    ("2024-01-01", STRING), ("2024-01-01T10:00:00Z", STRING), ("1:30", STRING), ("abc", STRING),
    ("1.5.6", STRING), ("1e400", STRING), ("12e", STRING), ("0x", STRING),
    ("~", None),
]


@pytest.mark.parametrize(("scalar", "error"), REAL_V1_36, ids=[v for v, _ in REAL_V1_36])
def test_a_plain_scalar_is_read_as_go_yaml_reads_it(scalar: str, error: str | None) -> None:
    body = (f"apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l\n"
            f"spec:\n  leaseDurationSeconds: {scalar}\n  holderIdentity: {scalar}\n").encode()

    async def scenario(api: Api) -> None:
        reply = await api.call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", data=body,
                               content_type="application/yaml")
        if error is None:
            assert reply.status == 201, reply
        else:
            assert (reply.status, reply.body["message"]) == (400, FRAME + error)

    serve(scenario)


@pytest.mark.parametrize(("scalar", "name"), [("+.inf", "+Inf"), (".nan", "NaN")])
def test_a_value_json_cannot_carry_fails_the_conversion(scalar: str, name: str) -> None:
    # kube-apiserver v1.36: 400 'the object provided is unrecognized (must be of type Lease): json:
    # unsupported value: +Inf (61706956...)' (the summary: the body's first bytes in hex)
    body = (f"apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l\n"
            f"spec:\n  leaseDurationSeconds: {scalar}\n").encode()

    async def scenario(api: Api) -> None:
        reply = await api.call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", data=body,
                               content_type="application/yaml")
        assert reply.status == 400
        assert reply.body["message"].startswith(
            f"the object provided is unrecognized (must be of type Lease): json: unsupported value: {name} "
            "(61706956657273696f6e3a20636f6f7264696e6174696f6e2e6b38732e69 ...)")

    serve(scenario)
