"""A ResourceClaim's spec (``fake_apiserver._registry.resource.claimspec``): its validation, each
message captured from kube-apiserver v1.36, the specs the real server takes, and a spec that is
immutable once created.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import Invalid
from fake_apiserver._registry.resource.claimspec import default_device_requests, validate_claim_spec, validate_claim_update


# --- resource claims -------------------------------------------------------------------------------

CLAIM_SPEC: dict[str, Any] = {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}


def _set(obj: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    if isinstance(obj, list):
        obj[int(parts[-1])] = value
    else:
        obj[parts[-1]] = value


# Each message captured from kube-apiserver v1.36: a claim with the minimal valid spec above, the
# field at the dotted path set as given, POSTed (the text after 'ResourceClaim... "x" is invalid: ').
@pytest.mark.parametrize(("dotted", "value", "message"), [
    ('spec.devices.requests.0', {'name': 'r'},
     'spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required'),
    ('spec.devices.requests.0', {'name': 'r', 'exactly': {'deviceClassName': 'dc'}, 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc'}]},
     'spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'),
    ('spec.devices.requests.0.name', 'Bad_Name',
     'spec.devices.requests[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'),
    ('spec.devices.requests.0.exactly', {},
     'spec.devices.requests[0].exactly.deviceClassName: Required value'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'Bad_Class'},
     'spec.devices.requests[0].exactly.deviceClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'allocationMode': 'Bogus'},
     'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Bogus": supported values: "All", "ExactCount"'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'count': -1},
     'spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'allocationMode': 'All', 'count': 2},
     "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{}]},
     'spec.devices.requests[0].exactly.selectors[0].cel: Required value'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': ''}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "": compilation failed: ERROR: <input>:1:0: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'bad('}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "bad(": compilation failed: ERROR: <input>:1:5: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \')\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | bad(\n | ....^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'a &&& b'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "a &&& b": compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: \'& \'\n | a &&& b\n | ....^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': '"unterminated'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "\\"unterminated": compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: \'"unterminated\'\n | "unterminated\n | ^\nERROR: <input>:1:14: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | "unterminated\n | .............^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'a in [1,2'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "a in [1,2": compilation failed: ERROR: <input>:1:10: Syntax error: mismatched input \'<EOF>\' expecting {\']\', \',\'}\n | a in [1,2\n | .........^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': '1 ? 2'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "1 ? 2": compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input \'<EOF>\' expecting \':\'\n | 1 ? 2\n | .....^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': '  '}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "  ": compilation failed: ERROR: <input>:1:3: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   \n | ..^'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'x.y.z('}}]}]},
     'spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression: Invalid value: "x.y.z(": compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \')\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | x.y.z(\n | ......^'),
    ('spec.devices.requests', [{'name': 'r', 'exactly': {'deviceClassName': 'dc'}}, {'name': 'r', 'exactly': {'deviceClassName': 'dc'}}],
     'spec.devices.requests[1]: Duplicate value: "r"'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': []},
     'spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's'}]},
     'spec.devices.requests[0].firstAvailable[0].deviceClassName: Required value'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc'}, {'name': 's', 'deviceClassName': 'dc'}]},
     'spec.devices.requests[0].firstAvailable[1]: Duplicate value: "s"'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc', 'allocationMode': 'Bogus'}]},
     'spec.devices.requests[0].firstAvailable[0].allocationMode: Unsupported value: "Bogus": supported values: "All", "ExactCount"'),
    ('spec.devices.constraints', [{'requests': ['nope'], 'matchAttribute': 'a.b/c'}],
     'spec.devices.constraints[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\''),
    ('spec.devices.constraints', [{'requests': ['r']}],
     'spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'),
    ('spec.devices.constraints', [{'requests': ['r'], 'matchAttribute': 'bad attr'}],
     '[spec.devices.constraints[0].matchAttribute: Invalid value: "bad attr": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\'), spec.devices.constraints[0].matchAttribute: Invalid value: "bad attr": a fully qualified name must be a domain and a name separated by a slash]'),
    ('spec.devices.config', [{'requests': ['nope'], 'opaque': {'driver': 'd', 'parameters': {}}}],
     'spec.devices.config[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\''),
    ('spec.devices.config', [{}],
     'spec.devices.config[0].opaque: Required value'),
    ('spec.devices.config', [{'opaque': {'driver': '', 'parameters': {}}}],
     'spec.devices.config[0].opaque.driver: Required value'),
    ('spec.devices.config', [{'opaque': {'driver': 'd.example.com'}}],
     'spec.devices.config[0].opaque.parameters: Required value'),
])
def test_resource_claim_spec_validation(dotted: str, value: Any, message: str) -> None:
    claim: dict[str, Any] = {"spec": copy.deepcopy(CLAIM_SPEC)}
    _set(claim, dotted, copy.deepcopy(value))
    default_device_requests(claim["spec"])
    errors = validate_claim_spec(claim["spec"])
    assert Invalid.of("ResourceClaim", "resource.k8s.io", "c", errors).message == (
        f'ResourceClaim.resource.k8s.io "c" is invalid: {message}')


@pytest.mark.parametrize(("dotted", "value"), [
    # each created (201) by kube-apiserver v1.36
    ("spec.devices.requests", []), ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "count": 0}),
    ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "allocationMode": "All"}),
    ("spec.devices.constraints", [{"matchAttribute": "a.b/c"}]),
    ("spec.devices.config", [{"opaque": {"driver": "d", "parameters": {}}}]), ("spec", {}),
    # selectors that parse; the real server type-checks them too, and took each
    ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "selectors": [{"cel": {"expression": 'device.driver == "x"'}}]}),
    ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "selectors": [
        {"cel": {"expression": 'device.capacity["x"].memory.compareTo(quantity("1Gi")) >= 0'}}]}),
])
def test_resource_claim_specs_the_real_server_takes(dotted: str, value: Any) -> None:
    claim: dict[str, Any] = {"spec": copy.deepcopy(CLAIM_SPEC)}
    _set(claim, dotted, copy.deepcopy(value))
    default_device_requests(claim["spec"])
    assert validate_claim_spec(claim["spec"]) == []


def test_a_claim_spec_is_immutable() -> None:
    old: dict[str, Any] = copy.deepcopy(CLAIM_SPEC)
    new = {"devices": {
        "requests": [{"name": "r2", "firstAvailable": [{"name": "s", "deviceClassName": "dc",
                                                         "selectors": [{"cel": {"expression": "true"}}]}]}],
        "constraints": [{"requests": ["r2"], "matchAttribute": "a.b/c"}],
        "config": [{"opaque": {"driver": "d.example.com", "parameters": {"a": 1}}}]}}
    for spec in (old, new):
        default_device_requests(spec)
    assert validate_claim_update(old, copy.deepcopy(old), semantic) == []
    errors = validate_claim_update(new, old, semantic)
    # captured from kube-apiserver v1.36 (PUT of a claim created with the old spec): the new spec as
    # Go's json.Marshal writes the internal type
    assert Invalid.of("ResourceClaim", "resource.k8s.io", "imm", errors).message == (
        'ResourceClaim.resource.k8s.io "imm" is invalid: spec: Invalid value: {"Devices":{"Requests":[{"Name":"r2",'
        '"Exactly":null,"FirstAvailable":[{"Name":"s","DeviceClassName":"dc","Selectors":[{"CEL":{"Expression":'
        '"true"}}],"AllocationMode":"ExactCount","Count":1,"Tolerations":null,"Capacity":null}]}],"Constraints":'
        '[{"Requests":["r2"],"MatchAttribute":"a.b/c","DistinctAttribute":null}],"Config":[{"Requests":null,'
        '"Opaque":{"Driver":"d.example.com","Parameters":{"a":1}}}]}}: field is immutable')
