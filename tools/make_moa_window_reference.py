"""Regenerate tests/data/moa_window.json: MOA's window measures after every row.

MOA's ``moa.evaluation.WindowAUCImbalancedPerformanceEvaluator`` (the jar that
ships with CapyMOA) is fed each stream of this script exactly as CapyMOA's
``AnomalyDetectionWindowedEvaluator.update(y, score)`` feeds it: an instance
of a two-valued nominal class attribute with the label, and the class votes
``[1 - score, score]`` (MOA normalises them, ``votes[1] / (votes[0] +
votes[1])``, and predicts the class of the larger vote, class 0 on a tie).
A Java driver written here (compiled with ``javac`` against ``moa.jar``)
records, after every row, the evaluator's Estimator reads ``getAUC``,
``getScoredAUC``, ``getAccuracy``, ``getKappa``, ``getRatio``, ``getGMean``,
``getRecall``, ``getHoldoutAUC`` and every value of
``getPerformanceMeasurements`` (which holds Kappa-M, a private read), each as
its exact bits (Java's hexadecimal double), with the normalised score MOA kept.
Each read is checked to equal its measurement, which alone is stored.
CapyMOA's names of the measurements (its ``metrics_header``) are read from
CapyMOA itself.

The streams (fixed seeds) cover ties (scores on a grid of quarters, 0.5
among them), continuous scores (some for which (1 - s) + s is not 1),
windows of one class, and windows of 1, 7 and 100 rows.  The inputs are
stored with the outputs, so the tests need neither Java nor this script.

Requires Java (javac 17+) and CapyMOA (``pip install capymoa``) in the Python
that runs this script.  Run: python tools/make_moa_window_reference.py
"""

import hashlib
import json
import subprocess
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "moa_window.json"

DRIVER = r"""
import com.yahoo.labs.samoa.instances.Attribute;
import com.yahoo.labs.samoa.instances.DenseInstance;
import com.yahoo.labs.samoa.instances.Instances;
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintWriter;
import java.util.ArrayList;
import moa.core.InstanceExample;
import moa.core.Measurement;
import moa.evaluation.WindowAUCImbalancedPerformanceEvaluator;

// Reads "width" then "label score" lines (score as a hexadecimal double); writes, after
// every row, the normalised score and the evaluator's reads as hexadecimal doubles.
public class MoaWindowDriver {
    static String hex(double value) {
        return Double.isNaN(value) ? "nan" : Double.toHexString(value);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new FileReader(args[0]));
        PrintWriter out = new PrintWriter(args[1]);
        int width = Integer.parseInt(in.readLine().trim());
        ArrayList<String> values = new ArrayList<>();
        values.add("0");
        values.add("1");
        ArrayList<Attribute> attributes = new ArrayList<>();
        attributes.add(new Attribute("Class", values));
        Instances header = new Instances("", attributes, 1);
        header.setClassIndex(0);
        DenseInstance instance = new DenseInstance(1);
        instance.setDataset(header);
        WindowAUCImbalancedPerformanceEvaluator evaluator =
            new WindowAUCImbalancedPerformanceEvaluator();
        evaluator.widthOption.setValue(width);
        boolean named = false;
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            int label = Integer.parseInt(parts[0]);
            double score = Double.parseDouble(parts[1]);
            double[] votes = new double[] {1 - score, score};
            instance.setClassValue(label);
            evaluator.addResult(new InstanceExample(instance), votes);
            WindowAUCImbalancedPerformanceEvaluator.Estimator e = evaluator.getAucEstimator();
            Measurement[] measurements = evaluator.getPerformanceMeasurements();
            if (!named) {
                StringBuilder names = new StringBuilder("names");
                for (Measurement m : measurements) {
                    names.append("\t").append(m.getName());
                }
                out.println(names);
                named = true;
            }
            double seen = votes[1] / (votes[0] + votes[1]);
            StringBuilder row = new StringBuilder("row");
            row.append(" ").append(hex(Double.isNaN(seen) ? 0.0 : seen));
            row.append(" ").append(hex(e.getAUC()));
            row.append(" ").append(hex(e.getScoredAUC()));
            row.append(" ").append(hex(e.getAccuracy()));
            row.append(" ").append(hex(e.getKappa()));
            row.append(" ").append(hex(e.getRatio()));
            row.append(" ").append(hex(e.getGMean()));
            row.append(" ").append(hex(e.getRecall()));
            row.append(" ").append(hex(e.getHoldoutAUC()));
            for (Measurement m : measurements) {
                row.append(" ").append(hex(m.getValue()));
            }
            out.println(row);
        }
        out.close();
    }
}
"""

#: The Estimator's reads the driver writes after the normalised score, in order.
READS = ("auc", "sauc", "accuracy", "kappa", "ratio", "gmean", "recall", "holdout_auc")
#: The measurement of ``getPerformanceMeasurements`` that each read is.
ESTIMATOR = {"auc": "AUC", "sauc": "sAUC", "accuracy": "Accuracy", "kappa": "Kappa",
             "ratio": "Pos/Neg ratio", "gmean": "G-Mean", "recall": "Recall",
             "holdout_auc": "Periodical holdout AUC"}


def streams():
    """The named streams: (width, labels, scores)."""
    rng = np.random.default_rng(4620)
    made = {}
    # Ties: scores on a grid of quarters (0.5 among them, where MOA predicts class 0).
    y = rng.integers(0, 2, 80)
    made["quarters_w7"] = (7, y, rng.integers(0, 5, 80) / 4)
    # Continuous scores, informative, with no score at exactly 0.5.
    y = rng.integers(0, 2, 300)
    s = np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0.0, 1.0)
    s[s == 0.5] = 0.51
    made["continuous_w100"] = (100, y, s)
    made["continuous_w7"] = (7, y[:120], s[:120])
    # Runs of one class (windows of one class), ties at 0 and 1 too.
    y = np.repeat([0, 1, 0, 1, 1, 0], [12, 3, 9, 14, 2, 10])
    s = rng.choice([0.0, 0.2, 0.3, 0.7, 1.0], y.size)
    made["runs_w7"] = (7, y, s)
    # Windows of one row: a single class every time.
    made["single_w1"] = (1, y[:20], s[:20])
    # Rare positives, tied and untied scores.
    y = (rng.random(200) < 0.08).astype(int)
    s = np.round(rng.beta(2, 5, 200) + 0.25 * y, 2).clip(0.0, 1.0)
    s[s == 0.5] = 0.49
    made["rare_w100"] = (100, y, s)
    return made


def compact_json(value, indent=""):
    """JSON with each list of numbers on one line (floats as Python's repr: exact)."""
    if isinstance(value, dict):
        inner = indent + " "
        items = [f"{inner}{json.dumps(key)}: {compact_json(item, inner)}"
                 for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    return json.dumps(value)


def main():
    import capymoa  # (the jar's location)
    from capymoa._utils import _translate_metric_name

    jar = Path(capymoa.__file__).parent / "jar" / "moa.jar"
    with zipfile.ZipFile(jar) as archive:
        properties = archive.read(
            "META-INF/maven/nz.ac.waikato.cms.moa/moa/pom.properties").decode()
    moa_version = next(line.split("=", 1)[1] for line in properties.splitlines()
                       if line.startswith("version="))
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    result = {
        "source": "tools/make_moa_window_reference.py",
        "moa_version": moa_version,
        "capymoa_version": metadata.version("capymoa"),
        "moa_jar_sha256": hashlib.sha256(jar.read_bytes()).hexdigest(),
        "java": java.splitlines()[0],
        "streams": {},
    }
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        (work / "MoaWindowDriver.java").write_text(DRIVER)
        subprocess.run(["javac", "-nowarn", "-cp", str(jar), "-d", str(work),
                        str(work / "MoaWindowDriver.java")], check=True)
        for name, (width, y, s) in streams().items():
            rows = [str(width)] + [f"{int(label)} {float(score).hex()}"
                                   for label, score in zip(y, s, strict=True)]
            (work / "in.txt").write_text("\n".join(rows) + "\n")
            subprocess.run(["java", "-cp", f"{jar}:{work}", "MoaWindowDriver",
                            str(work / "in.txt"), str(work / "out.txt")], check=True,
                           capture_output=True)
            lines = (work / "out.txt").read_text().splitlines()
            names = lines[0].split("\t")[1:]
            values = [[float("nan") if v == "nan" else float.fromhex(v)
                       for v in line.split()[1:]] for line in lines[1:]]
            table = np.array(values)
            measurements = {measurement: table[:, 1 + len(READS) + k].tolist()
                            for k, measurement in enumerate(names)}
            # The Estimator's reads are the measurements of the same name (stored once).
            for k, read in enumerate(READS):
                assert np.array_equal(table[:, 1 + k], measurements[ESTIMATOR[read]],
                                      equal_nan=True), (name, read)
            result["streams"][name] = {
                "width": width, "y": [int(label) for label in y],
                "score": [float(score) for score in s], "moa_score": table[:, 0].tolist(),
                "measurements": measurements}
            result["measurement_names"] = names
    result["capymoa_names"] = {
        name: _translate_metric_name(name, to="capymoa") for name in result["measurement_names"]}
    OUT.write_text(compact_json(result) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
